/**
 * A folder source's files become documents (docs/API.md, "Folder sources"), as a crawl's
 * pages do (crawl-sync.ts): each file is a `file` source of the pipeline linked to its
 * folder source, its external id the file's path relative to the folder. Once the walk
 * (folder/scan.ts) has found the files and their hashes, a new file is created with a
 * task; a changed one (another SHA-256) gets a new task, and its old chunks answer until
 * the new ones replace them in one commit (sink.ts); an unchanged one embeds nothing; a
 * file no longer there is deleted, unless it failed or lies in a folder that could not be
 * listed. A walk that failed as a whole never gets here: nothing is deleted.
 */
import { basename, extname } from "node:path";
import { type Metadata, parseStoredMetadata } from "../core/metadata";
import type { Store } from "../db/store";
import { findCollectionById } from "../db/repo/collections";
import { findDocumentById, updateDocument } from "../db/repo/documents";
import { dropPendingTasksOfDocument } from "../db/repo/external-documents";
import { type FolderFile, folderFilesOf } from "../db/repo/folder-files";
import { saveSourceFetch } from "../db/repo/source-fetches";
import type { Task } from "../db/schema";
import type { CrawlEngine } from "./crawl-sync";
import type { FolderScan, ScannedFile } from "./folder/types";
import { queueTask } from "./queue";

/** Failures a report lists (its count has them all). */
const MAX_LISTED = 100;

/** What one sync did, as the folder source shows it and its source.ready event carries it. */
export interface SyncReport {
  finishedAt: string;
  added: number;
  changed: number;
  deleted: number;
  unchanged: number;
  failed: number;
  failures: { path: string; reason: string }[];
}

/** What the sync needs of the vector store: a document's new metadata on its chunks, vectors kept. */
export interface MetadataRefresher {
  refreshMetadata(collectionId: string, documentIds: string[]): Promise<void>;
}

/** Unchanged files whose metadata is rewritten at once: one transaction and one rewrite of their chunks each. */
const RETAG_BATCH = 500;

/** New or changed files written in one group commit, as a batch request of the documents API is. */
const WRITE_GROUP = 500;

/** A new or changed file's write, and what the report counts when it succeeds. */
export interface FileWrite {
  path: string;
  kind: "added" | "changed";
  run: () => Promise<unknown>;
}

/**
 * Runs the new and changed files' writes WRITE_GROUP at a time: started together, they
 * share one group commit (db/batch.ts), each in its own savepoint, where one after the
 * other they took a commit each (docs/notes/2026-12-06-connected-first-sync.md). A
 * write that fails is listed in `failures`; the counts are of those that succeeded.
 */
export async function writeInGroups(
  writes: FileWrite[],
  failures: SyncReport["failures"],
): Promise<{ added: number; changed: number }> {
  const done = { added: 0, changed: 0 };
  for (let i = 0; i < writes.length; i += WRITE_GROUP) {
    const group = writes.slice(i, i + WRITE_GROUP);
    const outcomes = await Promise.allSettled(group.map((w) => w.run()));
    outcomes.forEach((o, j) => {
      const w = group[j]!;
      if (o.status === "fulfilled") done[w.kind]++;
      else failures.push({ path: w.path, reason: reasonOf(o.reason) });
    });
  }
  return done;
}

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
    private readonly vectors: MetadataRefresher,
  ) {}

  /** Applies the walk of `task`'s folder source; its report, stored on the source (null: the source is gone). */
  async finish(task: Task, scan: FolderScan): Promise<SyncReport | null> {
    const parent = await findDocumentById(this.db.reader, task.documentId);
    if (!parent) return null;
    const parentMetadata = parseStoredMetadata(parent.metadata);
    const held = new Map((await folderFilesOf(this.db.reader, parent.id)).map((f) => [f.path, f]));
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
      } else if (known)
        writes.push({ path: f.path, kind: "changed", run: () => this.change(task, known, f, metadata) });
      else writes.push({ path: f.path, kind: "added", run: () => this.add(task, f, metadata) });
    }
    Object.assign(report, await writeInGroups(writes, failures));
    await this.retag(task.collectionId, retag);
    report.deleted = await this.removeGone(task, held, scan, failures);
    report.failed = failures.length;
    report.failures = failures.slice(0, MAX_LISTED);
    report.finishedAt = new Date().toISOString();
    const changedAny = report.added + report.changed + report.deleted > 0;
    await this.db.atomically((t) =>
      saveSourceFetch(t, parent.id, {
        crawlReport: JSON.stringify(report),
        lastCheckedAt: report.finishedAt,
        ...(changedAny ? { lastChangedAt: report.finishedAt } : {}),
      }),
    );
    return report;
  }

  /** A new file: its document, queued, linked to the folder source. */
  private async add(task: Task, f: ScannedFile, metadata: Metadata): Promise<void> {
    const draft = {
      collectionId: task.collectionId,
      type: "file" as const,
      name: f.path.slice(-200),
      fileName: basename(f.path).slice(0, 255),
      fileSize: f.size,
      externalId: f.path,
      contentHash: f.hash,
      metadata,
    };
    await this.engine.createDocument(draft, undefined, (t, r) =>
      saveSourceFetch(t, r.id, { crawlSourceId: task.documentId }),
    );
  }

  /**
   * Files of the same bytes with a new modification time (or new metadata of their folder
   * source): nothing embedded, their metadata rewritten on the document and its chunks.
   * One at a time, 1,000 took 181 s (a table rewrite each); batched, see docs/notes/2026-12-06-folder-sources.md.
   */
  private async retag(collectionId: string, files: { id: string; metadata: string }[]): Promise<void> {
    for (let i = 0; i < files.length; i += RETAG_BATCH) {
      const batch = files.slice(i, i + RETAG_BATCH);
      await this.db.atomically(async (t) => {
        for (const f of batch) await updateDocument(t, f.id, { metadata: f.metadata });
      });
      await this.vectors.refreshMetadata(
        collectionId,
        batch.map((f) => f.id),
      );
    }
  }

  /** Other bytes: the file's new size, hash and metadata, and a task (superseding one that waits or runs). */
  private async change(task: Task, known: FolderFile, f: ScannedFile, metadata: Metadata): Promise<void> {
    const id = known.documentId;
    await this.engine.requeueWith(async (t) => {
      const col = await findCollectionById(t, task.collectionId);
      if (!col || !(await findDocumentById(t, id))) return;
      const patch = { fileSize: f.size, contentHash: f.hash, metadata: JSON.stringify(metadata) };
      await updateDocument(t, id, { ...patch, updatedAt: new Date().toISOString() });
      await dropPendingTasksOfDocument(t, id);
      await queueTask(t, id, col, Date.now());
    }, id);
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

/** Why a file could not be stored, in a sentence. */
function reasonOf(err: unknown): string {
  const message = String((err as Error)?.message ?? err);
  if (/UNIQUE constraint failed|duplicate key/i.test(message))
    return "its path is the external id of another source of this pipeline";
  return message;
}
