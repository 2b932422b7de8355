/**
 * What folder and Git syncs share (folder-sync.ts, git-sync.ts; a bucket's sync is a
 * folder's): the report of a sync, the new and changed files' writes in group commits,
 * a new file's document linked to its parent source, a changed file's new task, and the
 * report stored on the parent.
 */
import { basename } from "node:path";
import { type Metadata, parseStoredMetadata } from "../../core/metadata";
import type { Store } from "../../db/store";
import { findCollectionById } from "../../db/repo/collections";
import { findDocumentById, updateDocument } from "../../db/repo/documents";
import { dropPendingTasksOfDocument } from "../../db/repo/external-documents";
import { type FolderFile, folderFilesOf } from "../../db/repo/folder-files";
import { linkToParent, saveSourceFetch } from "../../db/repo/source-fetches";
import type { DocumentRow, Task } from "../../db/schema";
import type { CrawlEngine } from "./crawl-sync";
import { queueTask } from "../tasks/queue";
import { bringToParent, parentNow } from "./inherited-metadata";

/** Failures a report lists (its count has them all). */
export const MAX_LISTED = 100;

/** What one sync did, as the parent source shows it and its source.ready event carries it. */
export interface SyncReport {
  finishedAt: string;
  added: number;
  changed: number;
  deleted: number;
  unchanged: number;
  failed: number;
  failures: { path: string; reason: string }[];
}

/** New or changed files written in one group commit, as a batch request of the documents API is. */
const WRITE_GROUP = 500;

/** A file as a sync stores it: its path under the parent, its size, and the hash that says whether it changed. */
export interface SyncedFile {
  path: string;
  size: number;
  hash: string;
}

/** A new or changed file to write, with its document's metadata (and, changed, the document it has). */
export interface FileWrite {
  file: SyncedFile;
  metadata: Metadata;
  known?: FolderFile;
}

/** A sync's parent source, the metadata its files inherit, and the files it holds now by path. */
export interface SyncParent {
  row: DocumentRow;
  metadata: Metadata;
  held: Map<string, FolderFile>;
}

/** The documents of a parent source's files: created, queued again, and the sync's report. */
export class SyncedFiles {
  constructor(
    private readonly db: Store,
    private readonly engine: CrawlEngine,
  ) {}

  /** The parent source of `task` as a sync starts from it; null when it is gone. */
  async parentOf(task: Task): Promise<SyncParent | null> {
    const row = await findDocumentById(this.db.reader, task.documentId);
    if (!row) return null;
    const held = new Map((await folderFilesOf(this.db.reader, row.id)).map((f) => [f.path, f]));
    return { row, metadata: parseStoredMetadata(row.metadata), held };
  }

  /**
   * Writes the new and changed files of `task`'s parent source WRITE_GROUP at a time,
   * each group in one group commit (db/batch.ts): the new files with a few statements for
   * all (engine.createDocuments), the changed ones started together, each in its own
   * savepoint. One after the other they took a commit each, and one by one the new files
   * cost the main thread statements and savepoints of their own
   * (docs/notes/2026-12-06-connected-first-sync.md). A write that fails is listed in
   * `failures`; the counts are of those that succeeded.
   */
  async write(
    task: Task,
    from: SyncParent,
    writes: FileWrite[],
    failures: SyncReport["failures"],
  ): Promise<{ added: number; changed: number }> {
    const done = { added: 0, changed: 0 };
    const note = (w: FileWrite, o: PromiseSettledResult<unknown>) => {
      if (o.status === "fulfilled") done[w.known ? "changed" : "added"]++;
      else failures.push({ path: w.file.path, reason: reasonOf(o.reason) });
    };
    for (let i = 0; i < writes.length; i += WRITE_GROUP) {
      const group = writes.slice(i, i + WRITE_GROUP);
      const added = group.filter((w) => !w.known);
      const changed = group.filter((w) => w.known);
      const [made, requeued] = await Promise.all([
        this.add(task, from.row.metadata, added),
        Promise.allSettled(changed.map((w) => this.change(task, from.row.metadata, w))),
      ]);
      for (const [j, o] of made.entries()) note(added[j]!, o);
      for (const [j, o] of requeued.entries()) note(changed[j]!, o);
    }
    return done;
  }

  /**
   * New files: their documents, queued, linked to the parent source of `task`, with its
   * metadata as it is at their commit (read as `seen`: inherited-metadata.ts).
   */
  private add(task: Task, seen: string, writes: FileWrite[]): Promise<PromiseSettledResult<unknown>[]> {
    const drafts = writes.map(({ file: f, metadata }) => ({
      collectionId: task.collectionId,
      type: "file" as const,
      name: f.path.slice(-200),
      fileName: basename(f.path).slice(0, 255),
      fileSize: f.size,
      externalId: f.path,
      contentHash: f.hash,
      metadata,
    }));
    return this.engine.createDocuments(drafts, async (t, rows) => {
      await linkToParent(
        t,
        rows.map((r) => r.id),
        task.documentId,
      );
      await bringToParent(t, task.documentId, seen, rows);
    });
  }

  /** Other bytes: the file's new size, hash and metadata, and a task (superseding one that waits or runs). */
  private async change(task: Task, seen: string, { known, file: f, metadata }: FileWrite): Promise<void> {
    const id = known!.documentId;
    await this.engine.requeueWith(async (t) => {
      const col = await findCollectionById(t, task.collectionId);
      if (!col || !(await findDocumentById(t, id))) return;
      const stored = (await parentNow(t, task.documentId, seen))(JSON.stringify(metadata));
      const patch = { fileSize: f.size, contentHash: f.hash, metadata: stored };
      await updateDocument(t, id, { ...patch, updatedAt: new Date().toISOString() });
      await dropPendingTasksOfDocument(t, id);
      await queueTask(t, id, col, Date.now());
    }, id);
  }

  /** Stores the sync's report on the parent source (and when it last changed anything). */
  async saveReport(parentId: string, report: SyncReport): Promise<void> {
    const changedAny = report.added + report.changed + report.deleted > 0;
    await this.db.atomically((t) =>
      saveSourceFetch(t, parentId, {
        crawlReport: JSON.stringify(report),
        lastCheckedAt: report.finishedAt,
        ...(changedAny ? { lastChangedAt: report.finishedAt } : {}),
      }),
    );
  }
}

/** Why a file could not be stored, in a sentence. */
function reasonOf(err: unknown): string {
  const message = String((err as Error)?.message ?? err);
  if (/UNIQUE constraint failed|duplicate key/i.test(message))
    return "its path is the external id of another source of this pipeline";
  return message;
}
