/**
 * The checks of an imported pipeline export (docs/API.md, Export and import). Every
 * byte of an archive is the uploader's: its manifest hashes prove only that it is
 * whole, not that it is true. So each field is checked exactly as the door that
 * writes it would check it (the pipelines, sources and documents APIs), counts and
 * hashes are recomputed, and no path is ever built from a value in the archive.
 */
import { type CrawlSettings, parseCrawl, parseRefreshEvery } from "../core/fetch-settings";
import { CONTROL_CHARACTERS, externalIdProblem, metadataProblems } from "../core/metadata";
import { sourceUrlProblem } from "../ingest/fetch/index";
import { LANGUAGE_NAME } from "../ingest/ocr/languages";
import { sha256 } from "../tools/crypto";
import { ArchiveError, type ManifestEntry } from "./archive";
import type { PipelineMaker } from "./pipeline-maker";
import { isLanguageSetting, LEGACY } from "../text/languages";
import type { ExportedFetch, ExportedSettings, ExportManifest } from "./export";
import {
  checkParentLink,
  checkSyncedSettings,
  type ImportRules,
  SYNCED_TYPES,
  type SyncedType,
} from "./import-connected";

/** An exported source's id: only a name to match chunks and files by, never part of a path. */
const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const CHUNK_PART = /^chunks\/\d{5,9}\.arrow$/;
const SOURCE_FIELDS = new Set([
  "id",
  "type",
  "name",
  "url",
  "fileName",
  "fileSize",
  "metadata",
  "externalId",
  "contentHash",
  "ocr",
  "chunkCount",
  "createdAt",
  "indexedAt",
  "content",
  "hasFile",
  "fetch",
]);
const SOURCE_TYPES = ["text", "file", "url", "api", ...SYNCED_TYPES] as const;
/** Largest vector an index may hold: above every embedding model's size. */
const MAX_DIMENSIONS = 16_384;

/** A source line after its checks: only these values reach the database. */
export interface CheckedSource {
  id: string;
  type: (typeof SOURCE_TYPES)[number];
  name: string;
  url: string | null;
  fileName: string | null;
  fileSize: number | null;
  /** The stored JSON of its metadata, re-serialised from the checked object. */
  metadata: string;
  externalId: string | null;
  contentHash: string | null;
  ocr: string | null;
  content: string | null;
  /** The archive entry of its file (`files/<id>`), found in the manifest, not built from the id. */
  fileEntry: ManifestEntry | null;
  fetch: ExportedFetch | null;
}

/** Refuses an archive whose field `field` is wrong, naming where. */
function refuse(where: string, message: string): never {
  throw new ArchiveError(`${where}: ${message}`);
}

/** The manifest's model and vector size, and only the entries an export holds. */
export function checkManifestBody(m: ExportManifest): void {
  if (typeof m.model !== "string" || m.model.length === 0 || m.model.length > 210)
    refuse("manifest.json", "model must be a model name");
  const d = m.dimensions;
  if (d !== null && !(Number.isInteger(d) && d >= 1 && d <= MAX_DIMENSIONS))
    refuse("manifest.json", `dimensions must be null or a whole number from 1 to ${MAX_DIMENSIONS}`);
  for (const e of m.entries) {
    const known =
      e.path === "pipeline.json" ||
      e.path === "sources.jsonl" ||
      CHUNK_PART.test(e.path) ||
      (e.path.startsWith("files/") && SOURCE_ID.test(e.path.slice(6)));
    if (!known) refuse("manifest.json", `${JSON.stringify(e.path.slice(0, 80))} is not an entry of a pipeline export`);
    if (!Number.isSafeInteger(e.size) || e.size < 0) refuse("manifest.json", `${e.path} has no valid size`);
  }
  for (const needed of ["pipeline.json", "sources.jsonl"])
    if (!m.entries.some((e) => e.path === needed))
      refuse("manifest.json", `an export has ${needed}, and this one lists none`);
}

/** The pipeline settings, checked as a create request's body is; the index's model must be the manifest's. */
export function checkSettings(
  text: string,
  m: ExportManifest,
  pipelines: Pick<PipelineMaker, "creatable">,
): ExportedSettings {
  const raw = parseJson(text, "pipeline.json");
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) refuse("pipeline.json", "must be a JSON object");
  const { fields: body, problem } = pipelines.creatable(raw as Record<string, unknown>);
  if (problem) refuse("pipeline.json", `${problem.path.slice(1) || "settings"} ${problem.message.toLowerCase()}`);
  if (body.embeddingModel !== m.model)
    refuse("pipeline.json", "embeddingModel must be the model the manifest says the index was built with");
  // Exports made before languages have none: their index is kept as it was.
  body.language ??= LEGACY;
  if (body.language !== LEGACY && !isLanguageSetting(body.language as string))
    refuse("pipeline.json", "language must be auto, legacy or a code listed by GET /api/languages");
  return body as unknown as ExportedSettings;
}

/** The manifest entries of chunk parts, in order. */
export function chunkParts(m: ExportManifest): string[] {
  return m.entries
    .map((e) => e.path)
    .filter((p) => CHUNK_PART.test(p))
    .sort();
}

/** Each line of sources.jsonl, checked; ids and external ids are unique, every file entry belongs to a file source. */
export function checkSources(text: string, m: ExportManifest, rules: FetchRules): CheckedSource[] {
  const files = new Map(m.entries.filter((e) => e.path.startsWith("files/")).map((e) => [e.path.slice(6), e]));
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const out = lines.map((line, i) => checkSource(parseJson(line, `sources.jsonl line ${i + 1}`), i + 1, files, rules));
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  for (const [i, s] of out.entries()) {
    if (ids.has(s.id)) refuse(`sources.jsonl line ${i + 1}`, "id is used by an earlier line");
    ids.add(s.id);
    if (s.externalId !== null && externalIds.has(s.externalId))
      refuse(`sources.jsonl line ${i + 1}`, "externalId is used by an earlier line");
    if (s.externalId !== null) externalIds.add(s.externalId);
  }
  // Sets and maps: an archive may list a hundred thousand sources, and each look-up a scan froze the server.
  const owned = new Set(out.flatMap((s) => (s.fileEntry ? [s.fileEntry.path] : [])));
  for (const id of files.keys())
    if (!owned.has(`files/${id}`)) refuse("manifest.json", `files/${id} belongs to no file source`);
  const byId = new Map(out.map((s) => [s.id, s]));
  for (const [i, s] of out.entries()) checkParentLink(s, byId, i + 1);
  return out;
}

/** The fetch rules a source's URL is held to, and the folders allowed, as when it is created. */
type FetchRules = ImportRules;

function checkSource(raw: unknown, line: number, files: Map<string, ManifestEntry>, rules: FetchRules): CheckedSource {
  const where = `sources.jsonl line ${line}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) refuse(where, "must be a JSON object");
  const s = raw as Record<string, unknown>;
  for (const k of Object.keys(s)) if (!SOURCE_FIELDS.has(k)) refuse(where, `${k} is not a field of an exported source`);
  if (typeof s.id !== "string" || !SOURCE_ID.test(s.id)) refuse(where, "id must be a source id");
  if (!(SOURCE_TYPES as readonly unknown[]).includes(s.type))
    refuse(where, `type must be one of: ${SOURCE_TYPES.join(", ")}`);
  const type = s.type as CheckedSource["type"];
  if (typeof s.name !== "string" || s.name.trim().length === 0 || s.name.trim().length > 200)
    refuse(where, "name must be 1 to 200 characters, not counting whitespace around it");
  const content = checkContent(s, type, where);
  const fetch = checkFetch(s.fetch, type, where, rules);
  const fileEntry = type === "file" && s.hasFile === true ? (files.get(s.id) ?? null) : null;
  if (s.hasFile === true && !fileEntry) refuse(where, "hasFile is set but the archive has no file for it");
  if (type !== "file" && s.hasFile !== false && s.hasFile !== undefined) refuse(where, "hasFile is for file sources");
  return {
    id: s.id,
    type,
    name: s.name.trim(),
    url: checkUrl(s.url, type, where, rules),
    fileName: checkFileName(s.fileName, type, where),
    fileSize: fileEntry ? fileEntry.size : checkFileSize(s.fileSize, type, where),
    metadata: checkMetadata(s.metadata, where),
    externalId: checkExternalId(s.externalId, where),
    contentHash: hashOf(s.contentHash, content, fileEntry, where, type === "file" && !!fetch?.crawlSourceId),
    ocr: checkOcr(s.ocr, where),
    content,
    fileEntry,
    fetch,
  };
}

function checkContent(s: Record<string, unknown>, type: CheckedSource["type"], where: string): string | null {
  if (type !== "text") {
    if (s.content !== null && s.content !== undefined) refuse(where, "content is only for text sources");
    return null;
  }
  if (typeof s.content !== "string" || s.content.trim() === "") refuse(where, "content is required for a text source");
  return s.content;
}

function checkUrl(value: unknown, type: CheckedSource["type"], where: string, rules: FetchRules): string | null {
  if (type !== "url" && type !== "api" && type !== "git") {
    if (value !== null && value !== undefined) refuse(where, "url is only for url, api and git sources");
    return null;
  }
  if (typeof value !== "string") refuse(where, "url is required for a url, api or git source");
  const problem = sourceUrlProblem(value, rules);
  if (problem) refuse(where, `url: ${problem}`);
  // Credentials are never exported; one in the archive would be shown to everyone with access.
  const u = new URL(value);
  if (u.username || u.password) refuse(where, "url must not carry credentials");
  return value;
}

function checkFileName(value: unknown, type: CheckedSource["type"], where: string): string | null {
  if (type !== "file") {
    if (value !== null && value !== undefined) refuse(where, "fileName is only for file sources");
    return null;
  }
  if (typeof value !== "string" || value.trim() === "" || value.length > 255 || CONTROL_CHARACTERS.test(value))
    refuse(where, "fileName must be 1 to 255 characters without control characters");
  return value;
}

function checkFileSize(value: unknown, type: CheckedSource["type"], where: string): number | null {
  if (type !== "file" || value === null || value === undefined) return null;
  if (!Number.isSafeInteger(value) || (value as number) < 0) refuse(where, "fileSize must be a whole number of bytes");
  return value as number;
}

/** Stored metadata is a JSON object in a string; checked by the rules every door uses. */
function checkMetadata(value: unknown, where: string): string {
  if (value === null || value === undefined) return "{}";
  if (typeof value !== "string" || value.length > 64 * 1024)
    refuse(where, "metadata must be a JSON object in a string");
  const parsed = parseJson(value, `${where} metadata`);
  const problem = metadataProblems(parsed)[0];
  if (problem) refuse(where, `${problem.field}: ${problem.message}`);
  return JSON.stringify(parsed);
}

function checkExternalId(value: unknown, where: string): string | null {
  if (value === null || value === undefined) return null;
  const problem = externalIdProblem(value);
  if (problem) refuse(where, `${problem.field}: ${problem.message}`);
  return value as string;
}

/** A text's hash is its content's, a file's its bytes' (from the manifest); a fetched page's is only kept if well formed. */
/** A synced file's hash (`linked`) is its parent's kind, checked with the link (import-connected.ts). */
function hashOf(
  value: unknown,
  content: string | null,
  file: ManifestEntry | null,
  where: string,
  linked: boolean,
): string | null {
  if (content !== null) return sha256(content);
  if (file) return file.sha256;
  if (value === null || value === undefined) return null;
  if (linked && typeof value === "string") return value;
  if (typeof value !== "string" || !/^[0-9a-f]{64}$/.test(value)) refuse(where, "contentHash must be a SHA-256");
  return value;
}

/** What OCR read: {languages, pages}, re-serialised. */
function checkOcr(value: unknown, where: string): string | null {
  if (value === null || value === undefined) return null;
  const o = typeof value === "string" && value.length <= 1000 ? parseJson(value, `${where} ocr`) : null;
  const ok =
    typeof o === "object" &&
    o !== null &&
    Array.isArray((o as { languages?: unknown }).languages) &&
    (o as { languages: unknown[] }).languages.length <= 8 &&
    (o as { languages: unknown[] }).languages.every((l) => typeof l === "string" && LANGUAGE_NAME.test(l)) &&
    Number.isSafeInteger((o as { pages?: unknown }).pages) &&
    (o as { pages: number }).pages >= 0;
  if (!ok) refuse(where, "ocr must be {languages, pages} as JSON");
  const { languages, pages } = o as { languages: string[]; pages: number };
  return JSON.stringify({ languages, pages });
}

const FETCH_FIELDS = new Set([
  "refreshEvery",
  "crawl",
  "crawlSourceId",
  "etag",
  "lastModified",
  "lastCheckedAt",
  "lastChangedAt",
]);

/**
 * A url/api source's schedule and crawl, a synced source's schedule and settings, a
 * crawled page's or synced file's parent, checked as the sources API checks them.
 */
function checkFetch(
  value: unknown,
  type: CheckedSource["type"],
  where: string,
  rules: FetchRules,
): ExportedFetch | null {
  if (value === null || value === undefined) return null;
  if (type === "text") refuse(where, "fetch is not for text sources");
  if (typeof value !== "object" || Array.isArray(value)) refuse(where, "fetch must be an object");
  const f = value as Record<string, unknown>;
  for (const k of Object.keys(f)) if (!FETCH_FIELDS.has(k)) refuse(where, `fetch.${k} is not a field`);
  const every = f.refreshEvery === undefined ? { seconds: null } : parseRefreshEvery(f.refreshEvery);
  if ("field" in every) refuse(where, `fetch.refreshEvery ${every.message}`);
  if (type === "file" && (every.seconds !== null || (f.crawl ?? null) !== null))
    refuse(where, "a file source's fetch names its parent only");
  const synced = (SYNCED_TYPES as readonly string[]).includes(type);
  let crawl: CrawlSettings | string | null = synced
    ? checkSyncedSettings(type as SyncedType, f.crawl, where, rules)
    : null;
  if (!synced && f.crawl !== null && f.crawl !== undefined) {
    if (type !== "url") refuse(where, "fetch.crawl is for url sources");
    const parsed =
      typeof f.crawl === "string" && f.crawl.length <= 64 * 1024 ? parseJson(f.crawl, `${where} fetch.crawl`) : null;
    const c = parseCrawl(parsed);
    if (Array.isArray(c)) refuse(where, `fetch.${c[0]!.field} ${c[0]!.message}`);
    crawl = c;
  }
  const crawlSourceId = f.crawlSourceId ?? null;
  if (crawlSourceId !== null && (typeof crawlSourceId !== "string" || !SOURCE_ID.test(crawlSourceId)))
    refuse(where, "fetch.crawlSourceId must be a source id");
  if (crawlSourceId !== null && type !== "url" && type !== "file")
    refuse(where, "fetch.crawlSourceId is for crawled pages and synced files");
  return {
    refreshEvery: every.seconds,
    crawl: crawl && (typeof crawl === "string" ? crawl : JSON.stringify(crawl)),
    crawlSourceId: crawlSourceId as string | null,
    etag: validator(f.etag, "etag", where),
    lastModified: validator(f.lastModified, "lastModified", where),
    lastCheckedAt: instant(f.lastCheckedAt, "lastCheckedAt", where),
    lastChangedAt: instant(f.lastChangedAt, "lastChangedAt", where),
  };
}

function validator(value: unknown, field: string, where: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "string" || value.length > 1024 || CONTROL_CHARACTERS.test(value))
    refuse(where, `fetch.${field} must be a header value`);
  return value;
}

function instant(value: unknown, field: string, where: string): string | null {
  if (value === null || value === undefined) return null;
  const t = typeof value === "string" && value.length <= 40 ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(t)) refuse(where, `fetch.${field} must be a date and time`);
  return new Date(t).toISOString();
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    refuse(where, "is not valid JSON");
  }
}
