/**
 * The ingestion engine: durable tasks in SQLite, run by the worker pool, written
 * through the chunk sink. Every write is a task with a status a person can read;
 * a restart requeues what was running, and the reconciler makes LanceDB agree.
 */
import type { Config } from "../config";
import { WriteBatch } from "../db/batch";
import type { Db } from "../db/client";
import { findCollectionById } from "../db/queries/collections";
import { deleteDocumentRow, existingDocumentIds, findDocumentById, findDocumentText, insertDocument, markDocumentProcessing, setDocumentProgress } from "../db/queries/documents";
import { claimTask, pruneFinishedTasks, queuedTaskCount, requeueInterrupted, waitingDocumentsWithoutTask } from "../db/queries/tasks";
import type { Collection, DocumentRow, Task } from "../db/schema";
import type { FileStore } from "../files/store";
import type { Logger } from "../log";
import type { VectorStore } from "../vectors/store";
import { finishTask, queueTask, switchIfBuilt, type Outcome } from "./finish";
import type { Job, JobEvent } from "./job";
import type { WorkerPool } from "./pool";
import { ChunkSink } from "./sink";

const LEASE_MS = 30 * 60_000;
/**
 * Jobs whose worker is done but whose rows are still being committed do not hold
 * a worker; this many may wait for the writer at once (per worker), so commits
 * gather many small documents (a LanceDB commit costs ~15 ms however few its rows).
 * Memory is bounded by rows, below.
 */
const AWAITING_COMMIT_PER_WORKER = 256;
/** No new task starts while this many rows wait for the writer (about 60 MB with 384-dimension vectors). */
const MAX_PENDING_ROWS = 20_000;
export const QUEUE_LIMIT = 10_000;

interface Running {
  task: Task;
  /** The document's first run ever (created in this process, first attempt): its first write deletes nothing. */
  fresh: boolean;
  writes: Promise<void>[];
  failed: unknown;
}

export interface EngineDeps {
  db: Db;
  store: VectorStore;
  pool: WorkerPool;
  files: FileStore;
  config: Pick<Config, "ollamaUrl" | "openaiUrl" | "openaiKey" | "fetchAllow" | "fetchDeny" | "maxUploadMb">;
  log: Logger;
}

export class IngestEngine {
  readonly sink: ChunkSink;
  private readonly running = new Map<string, Running>();
  /** Group commit for new documents, finished tasks and progress. */
  private readonly writes: WriteBatch;
  /** Latest progress per document, written with the next group commit. */
  private readonly progress = new Map<string, { done: number; total: number }>();
  /** Documents created in this process whose first task has not started yet. */
  private readonly fresh = new Set<string>();
  /** Queue length as last counted, plus what was queued since; recounted at most every 250 ms. */
  private queued = { n: 0, at: -Infinity };
  private timer: Timer | null = null;
  private started = false;
  private stopped = false;

  constructor(private readonly d: EngineDeps) {
    this.sink = new ChunkSink(d.store, (collectionId, generation, ids) => this.writable(collectionId, generation, ids));
    this.writes = new WriteBatch(d.db);
  }

  /** Puts work interrupted by a stop or crash back in the queue; call before start. */
  recover(): void {
    const now = Date.now();
    const n = requeueInterrupted(this.d.db, now);
    if (n) this.d.log.info("requeued interrupted ingestion tasks", { count: n });
    // Belt and braces: a waiting document without a task would wait forever.
    for (const doc of waitingDocumentsWithoutTask(this.d.db)) {
      const col = findCollectionById(this.d.db, doc.collectionId);
      if (col) this.d.db.transaction((tx) => queueTask(tx as unknown as Db, doc.id, col, now));
    }
    this.d.files.sweepTemp();
  }

  /** Starts the scheduling loop. */
  start(): void {
    this.started = true;
    this.timer = setInterval(() => this.kick(), 1000);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.d.pool.close();
    await this.sink.drain();
    this.writes.flush();
  }

  /** Forgets finished tasks older than a week; run by the hourly housekeeping. */
  pruneTasks(): void {
    pruneFinishedTasks(this.d.db, Date.now() - 7 * 86_400_000);
  }

  /** True while any task is running or waiting to run now. */
  busy(): boolean {
    return this.running.size > 0 || queuedTaskCount(this.d.db) > 0;
  }

  /** True when the queue has room for `n` more tasks (a bound, so a count a moment old will do). */
  hasRoom(n = 1): boolean {
    const now = performance.now();
    if (now - this.queued.at > 250) this.queued = { n: queuedTaskCount(this.d.db), at: now };
    return this.queued.n + n <= QUEUE_LIMIT;
  }

  /**
   * Queues a document for the collection's current target generation. `prepare`
   * runs first in the same transaction (inserting the document, claiming its
   * upload), so a document is never stored without its task.
   */
  enqueue(documentId: string, collection: Collection, prepare?: (tx: Db) => void): void {
    this.d.db.transaction((tx) => {
      const t = tx as unknown as Db;
      prepare?.(t);
      queueTask(t, documentId, findCollectionById(t, collection.id) ?? collection, Date.now());
    });
    this.soon();
  }

  /**
   * Stores a new document (status `queued`) together with its task; resolves once
   * committed, with false when the collection was deleted before the commit.
   */
  async enqueueNew(row: DocumentRow, collection: Collection, content?: string): Promise<boolean> {
    const stored = await this.writes.run((t) => {
      const col = findCollectionById(t, collection.id);
      if (!col) return false;
      insertDocument(t, row, content);
      queueTask(t, row.id, col, Date.now(), true);
      return true;
    });
    if (stored) {
      // Bounded: forgetting only costs the next first write a delete that finds nothing.
      if (this.fresh.size >= QUEUE_LIMIT * 2) this.fresh.clear();
      this.fresh.add(row.id);
      this.queued.n++;
      this.soon();
    }
    return stored;
  }

  /** Stops a document's running job (its rows are then refused by the sink). */
  cancelDocument(documentId: string): void {
    this.d.pool.cancelDocument(documentId);
    for (const [jobId, r] of this.running) if (r.task.documentId === documentId) this.running.delete(jobId);
  }

  /** Deletes a document everywhere, even mid-ingestion: job, row, tasks, file, chunks. */
  async removeDocument(collectionId: string, documentId: string): Promise<void> {
    this.cancelDocument(documentId);
    this.fresh.delete(documentId);
    // Tasks go with the row (ON DELETE CASCADE); if it was the last one a re-index waited for, switch now.
    const drop = this.d.db.transaction((tx) => {
      deleteDocumentRow(tx as unknown as Db, documentId);
      return switchIfBuilt(tx as unknown as Db, collectionId, Date.now());
    });
    this.d.files.remove(collectionId, documentId);
    await this.d.store.deleteDocument(collectionId, documentId);
    if (drop !== null) await this.d.store.dropGeneration(collectionId, drop);
  }

  /** Stops the running jobs of a collection being deleted. */
  cancelCollection(collectionId: string): void {
    for (const r of [...this.running.values()]) if (r.task.collectionId === collectionId) this.cancelDocument(r.task.documentId);
  }

  private kickQueued = false;

  /** Starts queued tasks soon: with the next group commit, however many events ask for it this turn. */
  soon(): void {
    this.kick();
  }

  /**
   * Starts as many queued tasks as there are idle workers, inside the next group
   * commit: the claims of a turn cost no commit of their own.
   */
  kick(): void {
    if (this.kickQueued || !this.started || this.stopped) return;
    if (!this.hasCapacity()) return;
    this.kickQueued = true;
    this.writes
      .run((t) => {
        this.kickQueued = false;
        this.startQueued(t);
      })
      .catch((err) => this.d.log.error("could not start ingestion tasks", { error: err }));
  }

  /** Room in the workers, among the jobs awaiting commit, and in the sink. */
  private hasCapacity(): boolean {
    return this.d.pool.idle > 0 && this.running.size < this.d.pool.size * AWAITING_COMMIT_PER_WORKER && this.sink.pendingRows() < MAX_PENDING_ROWS;
  }

  /** Claims tasks and hands them to workers while there is room; never throws (jobs already handed over must stay claimed). */
  private startQueued(t: Db): void {
    try {
      // idle > 0: a claimed task always finds a worker (run() only refuses a full pool).
      while (!this.stopped && this.hasCapacity()) {
        const task = claimTask(t, Date.now(), LEASE_MS);
        if (!task) break;
        const job = this.jobFor(t, task);
        if (!job) continue;
        const fresh = this.fresh.delete(task.documentId) && task.attempts === 1;
        this.running.set(job.jobId, { task, fresh, writes: [], failed: null });
        const bytes = job.document.content?.length ?? job.document.fileSize ?? 0;
        this.d.pool.run(job, { onEvent: (e) => this.onEvent(e) }, bytes);
      }
    } catch (err) {
      this.d.log.error("could not start an ingestion task", { error: err });
    }
  }

  /** Builds the worker's job for a claimed task, or finishes the task when it cannot run. */
  private jobFor(db: Db, task: Task): Job | null {
    const doc = findDocumentById(db, task.documentId);
    const col = findCollectionById(db, task.collectionId);
    if (!doc || !col) return null;
    markDocumentProcessing(db, doc.id, new Date().toISOString());
    const building = task.generation === col.buildingGeneration;
    const model = (building ? col.buildingModel : col.indexModel) ?? col.embeddingModel;
    return {
      jobId: task.id,
      document: {
        id: doc.id,
        type: doc.type,
        content: doc.type === "text" ? findDocumentText(db, doc.id) : null,
        url: doc.url,
        fileName: doc.fileName,
        fileSize: doc.fileSize,
        filePath: doc.filePath ? this.d.files.pathOf(col.id, doc.id) : null,
      },
      chunking: { strategy: col.chunkingStrategy as Job["chunking"]["strategy"], size: col.chunkSize, overlap: col.chunkOverlap },
      model,
      embed: { ollamaUrl: this.d.config.ollamaUrl, openaiUrl: this.d.config.openaiUrl, openaiKey: this.d.config.openaiKey, batchSize: 32 },
      fetch: { allow: this.d.config.fetchAllow, deny: this.d.config.fetchDeny, maxBytes: this.d.config.maxUploadMb * 1024 * 1024, timeoutMs: 30_000 },
    };
  }

  private onEvent(e: JobEvent): void {
    const r = this.running.get(e.jobId);
    if (!r) return; // cancelled
    const { task } = r;
    if (e.type === "progress") {
      if (!this.progress.size) {
        this.writes.run((t) => this.writeProgress(t)).catch((err) => this.d.log.warn("could not record progress", { error: err }));
      }
      this.progress.set(task.documentId, { done: e.done, total: e.total });
    } else if (e.type === "rows") {
      const w = this.sink.write(task.collectionId, task.generation, task.documentId, e.rows, e.first, e.first && r.fresh);
      // The job may send its next slice once this one is in (or has failed, which fails the task).
      w.then(
        () => this.d.pool.ack(e.jobId),
        (err) => {
          r.failed = err;
          this.d.pool.ack(e.jobId);
        },
      );
      r.writes.push(w);
    } else {
      const outcome: Outcome =
        e.type === "done"
          ? { ok: true, chunkCount: e.chunkCount, dimensions: e.dimensions }
          : { ok: false, message: e.message, transient: e.transient };
      void this.finish(e.jobId, r, outcome);
      this.soon(); // the worker is free now; its rows commit meanwhile
    }
  }

  private writeProgress(db: Db): void {
    for (const [id, p] of this.progress) setDocumentProgress(db, id, p.done, p.total);
    this.progress.clear();
  }

  /** Waits for the job's rows to be committed, then records the outcome (with the next group commit). */
  private async finish(jobId: string, r: Running, outcome: Outcome): Promise<void> {
    await Promise.allSettled(r.writes);
    if (!this.running.has(jobId)) return;
    if (r.failed && outcome.ok) {
      outcome = { ok: false, message: `could not store the chunks: ${(r.failed as Error).message}`, transient: true };
    }
    const { task } = r;
    this.progress.delete(task.documentId);
    const done = await this.writes.run((t) => finishTask(t, task, outcome, Date.now()));
    this.running.delete(jobId);
    if (done.clearRows) {
      await this.sink.write(task.collectionId, task.generation, task.documentId, [], true).catch((err) =>
        this.d.log.warn("could not clear a failed document's rows", { error: err }),
      );
    }
    if (done.dropGeneration !== null) {
      await this.d.store.dropGeneration(task.collectionId, done.dropGeneration).catch((err) =>
        this.d.log.warn("could not drop an old index generation", { error: err }),
      );
    }
    this.soon();
  }

  /** The documents among `ids` whose rows may still be written into this generation. */
  private writable(collectionId: string, generation: number, ids: string[]): Set<string> {
    const col = findCollectionById(this.d.db, collectionId);
    if (!col || (generation !== col.activeGeneration && generation !== col.buildingGeneration)) return new Set();
    return existingDocumentIds(this.d.db, ids);
  }
}
