/**
 * A Git source's files become documents (docs/API.md, "Git sources"), as a folder's do
 * (folder-sync.ts): each file a `file` source of the pipeline linked to its Git source,
 * its external id the file's path in the repository, its content hash the blob id. Once
 * the worker (git/scan.ts) has found what changed at the branch's head, a new path is
 * created with a task; a path with another blob gets a new task, its old chunks
 * answering until the new ones replace them; a path no longer at the head is deleted,
 * unless it failed. A sync that could not fetch never gets here: nothing is deleted.
 */
import { extname } from "node:path";
import type { Metadata } from "../../core/metadata";
import type { Store } from "../../db/store";
import type { Task } from "../../db/schema";
import type { CrawlEngine } from "./crawl-sync";
import { type FileWrite, MAX_LISTED, type SyncReport, SyncedFiles } from "./synced-files";
import type { GitFile, GitScan } from "../git/types";

/** A folder's report, and the commit the sync took (the next sync's base). */
export type GitSyncReport = SyncReport & { commit: string };

/** A file's metadata: its Git source's, then where it is and the commit its version was taken at. */
export function gitFileMetadata(parent: Metadata, f: GitFile, scan: GitScan): Metadata {
  const extension = extname(f.path).slice(1).toLowerCase();
  return { ...parent, path: f.path, extension, commit: scan.commit, authorDate: scan.authorDate };
}

export class GitSync {
  constructor(
    readonly db: Store,
    private readonly engine: CrawlEngine,
    private readonly files = new SyncedFiles(db, engine),
  ) {}

  /** Applies the scan of `task`'s Git source; its report, stored on the source (null: the source is gone). */
  async finish(task: Task, scan: GitScan): Promise<GitSyncReport | null> {
    const from = await this.files.parentOf(task);
    if (!from) return null;
    const { row: parent, metadata: parentMetadata, held } = from;
    const failures = [...scan.failures];
    const writes: FileWrite[] = [];
    for (const f of scan.files) {
      const known = held.get(f.path);
      if (known?.contentHash === f.oid) continue; // the same blob (a force-push that kept it)
      const metadata = gitFileMetadata(parentMetadata, f, scan);
      const file = { path: f.path, size: f.size, hash: f.oid };
      writes.push({ file, metadata, ...(known ? { known } : {}) });
    }
    const { added, changed } = await this.files.write(task, from, writes, failures);
    const failed = new Set(failures.map((f) => f.path));
    const taken = new Set(scan.files.map((f) => f.path));
    let deleted = 0;
    for (const path of new Set(scan.gone)) {
      const f = held.get(path);
      if (!f || taken.has(path) || failed.has(path)) continue;
      await this.engine.removeDocument(task.collectionId, f.documentId);
      deleted++;
    }
    const unchanged = held.size - changed - deleted - [...failed].filter((p) => held.has(p)).length;
    const finishedAt = new Date().toISOString();
    const report: GitSyncReport = {
      finishedAt,
      added,
      changed,
      deleted,
      unchanged,
      failed: failures.length,
      failures: failures.slice(0, MAX_LISTED),
      commit: scan.commit,
    };
    await this.files.saveReport(parent.id, report);
    return report;
  }
}
