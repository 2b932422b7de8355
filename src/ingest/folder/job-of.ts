/**
 * The folder parts of a claimed task's job (tasks/job-for.ts): a folder source's sync, with
 * what it holds; a folder's file, with where it is read.
 */
import { realpathSync } from "node:fs";
import type { FolderSettings } from "../../core/folder-settings";
import type { Db } from "../../db/client";
import { folderFilesOf } from "../../db/repo/folder-files";
import type { SourceFetch } from "../../db/schema";
import type { LinkedParent } from "../job-types";
import type { FolderFileRef, FolderJob, KnownFile } from "./types";

/** The allowed roots that exist, as real paths (a root may be a link). */
function realRoots(roots: string[]): string[] {
  const out: string[] = [];
  for (const r of roots) {
    try {
      out.push(realpathSync(r));
    } catch {
      // A root that is gone allows nothing.
    }
  }
  return out;
}

/** A folder source's sync job; `settled` false (a re-index) skips the walk. */
export async function folderJob(
  db: Db,
  documentId: string,
  state: SourceFetch | undefined,
  settled: boolean,
  roots: string[],
): Promise<FolderJob | null> {
  if (!state?.crawl) return null;
  const settings = JSON.parse(state.crawl) as FolderSettings;
  if (!settled) return { settings, roots: [], known: {}, skip: true };
  const known: Record<string, KnownFile> = {};
  for (const f of await folderFilesOf(db, documentId)) {
    const m = JSON.parse(f.metadata) as { size?: unknown; modifiedAt?: unknown };
    if (typeof m.size === "number" && typeof m.modifiedAt === "string")
      known[f.path] = { size: m.size, modifiedAt: m.modifiedAt, hash: f.contentHash };
  }
  return { settings, roots: realRoots(roots), known };
}

/** Where a folder's file is read, `parent` its folder source as read; null when it cannot be. */
export function folderFileOf(externalId: string | null, parent: LinkedParent): FolderFileRef | null {
  if (externalId === null || !parent.state?.crawl) return null;
  const settings = JSON.parse(parent.state.crawl) as FolderSettings;
  return { root: settings.path, path: externalId, maxBytes: settings.maxFileMb * 1024 * 1024 };
}
