/**
 * A folder source's files become documents (docs/API.md, "Folder sources"), as a crawl's
 * pages do (crawl-sync.ts): each file is a `file` source of the pipeline linked to its
 * folder source, its external id the file's path relative to the folder. Once the walk
 * (folder/scan.ts) has found the files and their hashes, a new file is created with a
 * task; a changed one (another SHA-256) gets a new task, and its old chunks answer until
 * the new ones replace them in one commit (write/sink.ts); an unchanged one embeds nothing; a
 * file no longer there is deleted, unless it failed or lies in a folder that could not be
 * listed. A walk that failed as a whole never gets here: nothing is deleted.
 */
import { extname } from "node:path";
import type { Metadata } from "../../core/metadata";
import type { Store } from "../../db/store";
import { updateDocument } from "../../db/repo/documents";
import type { FolderFile } from "../../db/repo/folder-files";
import type { Task } from "../../db/schema";
import type { CrawlEngine } from "./crawl-sync";
import type { FolderScan, ScannedFile } from "../folder/types";
import { type FileWrite, MAX_LISTED, type SyncReport, SyncedFiles } from "./synced-files";
import { parentNow } from "./inherited-metadata";

/** What the sync needs of the vector store: a document's new metadata on its chunks, vectors kept. */
export interface MetadataRewriter {
  rewriteMetadata(collectionId: string, documentIds: string[]): Promise<void>;
}

/** Unchanged files whose metadata is rewritten at once: one transaction and one rewrite of their chunks each. */
const RETAG_BATCH = 500;

/** The metadata a file's document gets: the folder source's, then where the file is (for filters). */
export function fileMetadata(parent: Metadata, f: ScannedFile): Metadata {
  const extension = extname(f.path).slice(1).toLowerCase();
  const where = { path: f.path, extension, modifiedAt: f.modifiedAt, size: f.size };
  return { ...parent, ...where, ...(f.etag !== undefined ? { etag: f.etag } : {}) };
}

export class FolderSync {
  constructor(
    private readonly db: Store,
    private readonly engine: CrawlEngine,
    private readonly chunkMetadata: MetadataRewriter,
    private readonly files = new SyncedFiles(db, engine),
  ) {}

  /** Applies the walk of `task`'s folder source; its report, stored on the source (null: the source is gone). */
  async finish(task: Task, scan: FolderScan): Promise<SyncReport | null> {
    const from = await this.files.parentOf(task);
    if (!from) return null;
    const { row: parent, metadata: parentMetadata, held } = from;
    const report: SyncReport = {
      finishedAt: "",
      added: 0,
      changed: 0,
      deleted: 0,
      unchanged: 0,
      failed: 0,
      failures: [],
    };
    const failures = [...scan.failures];
    const retag: { id: string; metadata: string }[] = [];
    const writes: FileWrite[] = [];
    for (const f of scan.files) {
      const metadata = fileMetadata(parentMetadata, f);
      const known = held.get(f.path);
      if (known?.contentHash === f.hash) {
        const stored = JSON.stringify(metadata);
        if (stored !== known.metadata) retag.push({ id: known.documentId, metadata: stored });
        report.unchanged++;
      } else writes.push({ file: f, metadata, ...(known ? { known } : {}) });
    }
    Object.assign(report, await this.files.write(task, from, writes, failures));
    await this.retag(task, parent.metadata, retag);
    report.deleted = await this.removeGone(task, held, scan, failures);
    report.failed = failures.length;
    report.failures = failures.slice(0, MAX_LISTED);
    report.finishedAt = new Date().toISOString();
    await this.files.saveReport(parent.id, report);
    return report;
  }

  /**
   * Files of the same bytes with a new modification time (or new metadata of their folder
   * source): nothing embedded, their metadata rewritten on the document and its chunks.
   * One at a time, 1,000 took 181 s (a table rewrite each); batched, see docs/notes/2026-12-06-folder-sources.md.
   */
  private async retag(task: Task, seen: string, files: { id: string; metadata: string }[]): Promise<void> {
    for (let i = 0; i < files.length; i += RETAG_BATCH) {
      const batch = files.slice(i, i + RETAG_BATCH);
      await this.db.atomically(async (t) => {
        // The folder source's metadata may have changed since the sync read it (inherited-metadata.ts).
        const follow = await parentNow(t, task.documentId, seen);
        // A later update time: restricted callers are not shown the files until their chunks follow (current-labels.ts).
        const updatedAt = new Date().toISOString();
        for (const f of batch) await updateDocument(t, f.id, { metadata: follow(f.metadata), updatedAt });
      });
      await this.chunkMetadata.rewriteMetadata(
        task.collectionId,
        batch.map((f) => f.id),
      );
    }
  }

  /** Deletes the files the walk did not find, keeping those that failed or whose folder was not listed. */
  private async removeGone(
    task: Task,
    held: Map<string, FolderFile>,
    scan: FolderScan,
    failures: { path: string }[],
  ): Promise<number> {
    const found = new Set(scan.files.map((f) => f.path));
    const failed = new Set(failures.map((f) => f.path));
    const unlisted = scan.unlisted.map((u) => `${u}/`);
    let deleted = 0;
    for (const [path, f] of held) {
      if (found.has(path) || failed.has(path) || unlisted.some((u) => path.startsWith(u))) continue;
      await this.engine.removeDocument(task.collectionId, f.documentId);
      deleted++;
    }
    return deleted;
  }
}
