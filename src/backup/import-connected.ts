/**
 * The checks of an imported export's synced sources (docs/API.md, Export and import): a
 * folder, s3 or git source's settings, read as the sources API reads them at creation
 * (a folder under RAGD_FOLDER_ROOTS of this server, an endpoint or a clone URL under its
 * fetch rules), and the link from each file to its parent, which must be a source of the
 * same archive. Keys and credentials never travel: an imported s3 source has none, and
 * its syncs fail, saying to add it again, until it is; a Git source fetches without any.
 */
import { readBucketSettings } from "../core/bucket-settings";
import type { Problem } from "../core/fetch-settings";
import { readFolderSettings } from "../core/folder-settings";
import { readGitSettings } from "../core/git-settings";
import { CONTROL_CHARACTERS } from "../core/metadata";
import { literalAddressProblem } from "../ingest/fetch/index";
import { ArchiveError } from "./archive";

/** The types whose files are synced from elsewhere: each is a parent, its files sources of their own. */
export const SYNCED_TYPES = ["folder", "s3", "git"] as const;
export type SyncedType = (typeof SYNCED_TYPES)[number];

/** What an import is held to: the fetch rules and the folders this server allows. */
export type ImportRules = { fetchAllow: string[]; fetchDeny: string[]; folderRoots: string[] };

function refuse(where: string, message: string): never {
  throw new ArchiveError(`${where}: ${message}`);
}

function firstProblem(where: string, problems: Problem[]): never {
  refuse(where, `fetch.crawl.${problems[0]!.field} ${problems[0]!.message}`);
}

/** A synced source's settings (its fetch.crawl, a JSON object in a string), read again; the JSON stored. */
export function checkSyncedSettings(type: SyncedType, value: unknown, where: string, rules: ImportRules): string {
  let b: unknown = null;
  try {
    b = typeof value === "string" && value.length <= 64 * 1024 ? JSON.parse(value) : null;
  } catch {
    refuse(where, "fetch.crawl is not valid JSON");
  }
  if (typeof b !== "object" || b === null || Array.isArray(b)) refuse(where, `a ${type} source needs its settings`);
  if (type === "folder") {
    const read = readFolderSettings(b, rules.folderRoots);
    return Array.isArray(read) ? firstProblem(where, read) : JSON.stringify(read);
  }
  if (type === "git") {
    // Stored, the default branch is null; the sources API takes it as absent.
    const { branch, ...rest } = b as { branch?: unknown };
    const read = readGitSettings(branch === null ? rest : b);
    return Array.isArray(read) ? firstProblem(where, read) : JSON.stringify(read);
  }
  // The keys never travel: stand-ins satisfy the reader and are dropped.
  const read = readBucketSettings({ ...b, accessKeyId: "-", secretAccessKey: "-" });
  if (Array.isArray(read)) firstProblem(where, read);
  const refused = literalAddressProblem(read.settings.endpoint, rules);
  if (refused) refuse(where, `fetch.crawl.endpoint ${refused}`);
  return JSON.stringify(read.settings);
}

/** What a synced file's content hash is: a folder's SHA-256, a Git blob id, an object's ETag. */
const HASH_OF: Record<SyncedType, { test: (h: string) => boolean; says: string }> = {
  folder: { test: (h) => /^[0-9a-f]{64}$/.test(h), says: "a SHA-256" },
  git: { test: (h) => /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(h), says: "a Git object id" },
  s3: { test: (h) => h.length <= 1024 && !CONTROL_CHARACTERS.test(h), says: "an ETag" },
};

/** A source as the link checks see it. */
interface Linked {
  id: string;
  type: string;
  contentHash: string | null;
  fetch: { crawl: string | null; crawlSourceId: string | null } | null;
}

/**
 * A source's parent (fetch.crawlSourceId) is a source of the same archive: a crawled
 * page's a crawl source, a synced file's a folder, s3 or git source, whose kind of hash
 * the file's content hash is.
 */
export function checkParentLink(s: Linked, byId: ReadonlyMap<string, Linked>, line: number): void {
  const where = `sources.jsonl line ${line}`;
  const parentId = s.fetch?.crawlSourceId;
  if (!parentId) return;
  const found = byId.get(parentId);
  const parent = found === s ? undefined : found;
  if (s.type !== "file") {
    if (!parent?.fetch?.crawl || parent.type !== "url")
      refuse(where, "fetch.crawlSourceId must name a crawl source of the archive");
    return;
  }
  if (!parent || !(SYNCED_TYPES as readonly string[]).includes(parent.type))
    refuse(where, "fetch.crawlSourceId must name a folder, s3 or git source of the archive");
  const hash = HASH_OF[parent.type as SyncedType];
  if (s.contentHash === null || !hash.test(s.contentHash))
    refuse(where, `contentHash must be ${hash.says}, as a file of a ${parent.type} source has`);
}
