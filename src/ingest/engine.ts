/**
 * The ingestion engine: durable tasks in SQLite, run by the worker pool, written
 * through the chunk sink. Every write is a task with a status a person can read;
 * a restart requeues what was running, and the reconciler makes LanceDB agree.
 */
import { WriteBatch } from "../db/batch";
import type { Db } from "../db/client";
import { findCollectionById } from "../db/repo/collections";
import { deleteDocumentRow, existingDocumentIds } from "../db/repo/documents";
import { claimTask, pruneFinishedTasks, queuedTaskCount } from "../db/repo/tasks";
import type { DocumentRow, Task } from "../db/schema";
import type { FileStore } from "../files/store";
import type { Logger } from "../log";
import { throttledLogger } from "../log-throttle";
import type { VectorStore } from "../vectors/store";
import { QueueFullError } from "./errors";
import { type Outcome, outcomeOf, recordOutcome, settleOutcome } from "./outcome";
import {
  type DocumentDraft,
  type Enqueued,
  insertNewDocument,
  newDocumentRow,
  requeueDocument,
  type UploadedFile,
} from "./queue";
import { type UpsertPlan, type Upserted, upsertDocumentTx } from "./upsert";
import { recordSourceEvent } from "./events";
import { endReindexIfBuilt, isLive, startReindex } from "./generations";
import type { DiskGate } from "./disk-watch";
import { collectionsOnce, jobFor, type JobSettings } from "./job-for";
import type { JobEvent, StageTimes } from "./job";
import type { WorkerPool } from "./pool";
import { ProgressBuffer } from "./progress";
import { ChunkSink } from "./sink";
import { IngestStats } from "./stats";
import { CrawlSync } from "./crawl-sync";
import { crawledPageIds, findSourceFetch } from "../db/repo/source-fetches";

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

/** A claimed task whose room in the pool is taken; `send` hands it to its worker. */
interface Claimed {
  jobId: string;
  send: () => void;
}

interface RunningTask {
  task: Task;
  writes: Promise<void>[];
  failed: unknown;
  /** The document's type, and what /metrics and the log learn of the task (stats.ts). */
  type: string;
  started: number;
  writeSeconds: number;
}

export interface EngineDeps {
  db: Db;
  store: VectorStore;
  pool: WorkerPool;
  files: FileStore;
  /** What the jobs are built from (job-for.ts). */
  config: JobSettings["config"];
  log: Logger;
  /** Free space on the data directory's disk (see disk-watch.ts); without it, ingestion never waits for space. */
  disk?: DiskGate;
}

/** Told when a gated re-index has built its generation (generations.ts); it decides the switch. */
export type BuiltListener = (collectionId: string) => void;

export class IngestEngine {
  readonly sink: ChunkSink;
  /** Counters, stage durations and the log line of each ended task. */
  readonly stats: IngestStats;
  /** Makes documents of the pages crawls reach (crawl-sync.ts). */
  private readonly crawls: CrawlSync;
  private readonly running = new Map<string, RunningTask>();
  /** Endings being recorded (finish()): a stop waits for them. */
  private readonly finishing = new Set<Promise<void>>();
  /** Group commit for new documents, finished tasks and progress. */
  private readonly writes: WriteBatch;
  private readonly progress: ProgressBuffer;
  /** Queue length as last counted, plus what was queued since; recounted at most every 250 ms. */
  private queued = { n: 0, at: -Infinity };
  private timer: Timer | null = null;
  private started = false;
  private stopped = false;
  /** For failures that recur on every tick (a full disk refusing each claim): once, then once a minute. */
  private readonly quiet: Logger;

  constructor(private readonly d: EngineDeps) {
    this.quiet = throttledLogger(d.log);
    this.stats = new IngestStats(d.log);
    this.sink = new ChunkSink(d.store, (collectionId, generation, ids) => this.writable(collectionId, generation, ids));
    this.writes = new WriteBatch(d.db);
    this.progress = new ProgressBuffer(this.writes, this.quiet);
    this.crawls = new CrawlSync(d.db, this);
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
    // An ending being recorded finishes its work (a re-index's switch drops the old index).
    await Promise.allSettled([...this.finishing]);
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

  /**
   * Refuses (QueueFullError) unless the queue has room for `n` more tasks; a batch is
   * refused whole rather than half-queued. A bound, so a count a moment old will do.
   */
  requireRoom(n = 1): void {
    const now = performance.now();
    if (now - this.queued.at > 250) this.queued = { n: queuedTaskCount(this.d.db), at: now };
    if (this.queued.n + n > QUEUE_LIMIT) throw new QueueFullError();
  }

  /**
   * Queues a stored document again (a retry, a repair) in its collection's target
   * generation. With `upload`, the document first takes its uploaded file, once, in
   * the same transaction, so a document never has its file without its task.
   */
  enqueue(documentId: string, opts: { upload?: UploadedFile } = {}): Enqueued {
    const result = this.d.db.transaction((tx) => requeueDocument(tx as unknown as Db, documentId, opts, Date.now()));
    if (result === "queued") this.kick();
    return result;
  }

  /**
   * Creates a document: its row (and a text source's content) with its task, unless
   * it waits for its file, in the next group commit. Resolves once committed, with
   * the row, or null when the collection was deleted first.
   */
  async createDocument(
    draft: DocumentDraft,
    content?: string,
    also?: (t: Db, row: DocumentRow) => void,
  ): Promise<DocumentRow | null> {
    const row = newDocumentRow(draft);
    const stored = await this.writes.run((t) => {
      const col = findCollectionById(t, row.collectionId);
      if (col) insertNewDocument(t, row, col, Date.now(), content);
      if (col) also?.(t, row);
      return col !== undefined;
    });
    if (!stored) return null;
    this.sink.markNew(row.id);
    if (row.status === "queued") {
      this.queued.n++;
      this.kick();
    }
    return row;
  }

  /**
   * Creates, replaces or leaves a document by its external id (upsert.ts), in the
   * next group commit: the items of a batch request share one transaction, each in
   * its own savepoint, so a refused item undoes only itself. Null when the collection is gone.
   */
  async upsertDocument(plan: UpsertPlan): Promise<Upserted | null> {
    const done = await this.writes.run((t) => {
      const r = upsertDocumentTx(t, plan, Date.now());
      // Cancelled before any claim of this commit can start the new version's task.
      if (r?.status === "replaced") this.cancelDocument(r.row.id);
      return r;
    });
    if (done?.status === "created") this.sink.markNew(done.row.id);
    if (done?.queued) {
      this.queued.n++;
      this.kick();
    }
    return done;
  }

  /**
   * Runs `fn` (which queues `documentId` again) in the next group commit, cancelling
   * the document's running job in the same turn, then looks for work.
   */
  async requeueWith<T>(fn: (t: Db) => T, documentId: string): Promise<T> {
    const result = await this.writes.run((t) => {
      const r = fn(t);
      this.cancelDocument(documentId);
      return r;
    });
    this.queued.n++;
    this.kick();
    return result;
  }

  /** Stops a document's running job (its rows are then refused by the sink). */
  cancelDocument(documentId: string): void {
    this.d.pool.cancelDocument(documentId);
    for (const [jobId, r] of this.running) if (r.task.documentId === documentId) this.running.delete(jobId);
  }

  /** Deletes a document everywhere, even mid-ingestion: job, row, tasks, file, chunks. */
  async removeDocument(collectionId: string, documentId: string): Promise<void> {
    // Its job first, so that a crawl adds no page while its pages go with it.
    this.cancelDocument(documentId);
    if (findSourceFetch(this.d.db, documentId)?.crawl) await this.removeCrawledPages(collectionId, documentId);
    // Tasks go with the row (ON DELETE CASCADE); if it was the last one a re-index waited for, switch now.
    const end = this.d.db.transaction((tx) => {
      recordSourceEvent(tx as unknown as Db, "source.deleted", documentId, { status: "deleted" });
      deleteDocumentRow(tx as unknown as Db, documentId);
      return endReindexIfBuilt(tx as unknown as Db, collectionId, Date.now());
    });
    this.d.files.remove(collectionId, documentId);
    await this.d.store.deleteDocument(collectionId, documentId);
    if (end.drop !== null) await this.d.store.dropGeneration(collectionId, end.drop);
    if (end.gated) this.onBuilt?.(collectionId);
  }

  /** Set by the evaluation gate (features/evals/gate.ts): told when a gated re-index has built. */
  onBuilt: BuiltListener | null = null;

  /** Deletes a crawl source's pages, once a page already in the group commit is committed too. */
  private async removeCrawledPages(collectionId: string, crawlSourceId: string): Promise<void> {
    await this.writes.run(() => undefined);
    for (const page of crawledPageIds(this.d.db, crawlSourceId)) await this.removeDocument(collectionId, page);
  }

  /**
   * Re-index: rebuild every document with the collection's current settings (generations.ts).
   * With `gate` (an evaluation set id) the new generation switches only if it does not do worse.
   */
  async reindex(collectionId: string, gate: string | null = null): Promise<void> {
    for (const g of startReindex(this.d.db, collectionId, Date.now(), gate))
      await this.d.store.dropGeneration(collectionId, g);
    this.kick();
  }

  /** Stops the running jobs of a collection being deleted. */
  cancelCollection(collectionId: string): void {
    for (const r of [...this.running.values()])
      if (r.task.collectionId === collectionId) this.cancelDocument(r.task.documentId);
  }

  private kickQueued = false;

  /**
   * Starts as many queued tasks as there are idle workers, inside the next group
   * commit (once, however many events ask for it in a turn): the claims of a turn
   * cost no commit of their own.
   */
  kick(): void {
    if (this.kickQueued || !this.started || this.stopped) return;
    if (!this.hasCapacity()) return;
    this.kickQueued = true;
    let claimed: Claimed[] = [];
    this.writes
      .run((t) => {
        this.kickQueued = false;
        claimed = this.startQueued(t);
      })
      // Jobs go to the workers only once their claims are committed; if the commit fails,
      // the claims are undone and so is their room in the pool.
      .then(() => {
        for (const c of claimed) c.send();
      })
      .catch((err) => {
        for (const c of claimed) {
          this.d.pool.release(c.jobId);
          this.running.delete(c.jobId);
        }
        this.quiet.error("could not start ingestion tasks", { error: err });
      })
      .finally(() => (this.kickQueued = false));
  }

  /** Room in the workers, among the jobs awaiting commit, and in the sink. */
  private hasCapacity(): boolean {
    return (
      this.d.pool.idle > 0 &&
      this.running.size < this.d.pool.size * AWAITING_COMMIT_PER_WORKER &&
      this.sink.pendingRows() < MAX_PENDING_ROWS &&
      (this.d.disk?.writable() ?? true)
    );
  }

  /**
   * Claims tasks and takes room for them in the pool while there is room; never
   * throws, so the claims made before an error still commit with their jobs.
   */
  private startQueued(t: Db): Claimed[] {
    const claimed: Claimed[] = [];
    const collectionOf = collectionsOnce(t);
    try {
      // idle > 0: a claimed task always finds room (assign() only refuses a full pool).
      while (!this.stopped && this.hasCapacity()) {
        const task = claimTask(t, Date.now(), LEASE_MS);
        if (!task) break;
        const job = jobFor(t, task, this.d, collectionOf);
        if (!job) continue;
        const type = job.document.type;
        this.running.set(job.jobId, {
          task,
          writes: [],
          failed: null,
          type,
          started: performance.now(),
          writeSeconds: 0,
        });
        // A url or api source's size is not known before it is fetched: a whole unit.
        const bytes = job.document.content?.length ?? job.document.fileSize ?? null;
        const send = this.d.pool.assign(job, { onEvent: (e) => this.onEvent(e) }, bytes);
        if (send) claimed.push({ jobId: job.jobId, send });
      }
    } catch (err) {
      this.quiet.error("could not start an ingestion task", { error: err });
    }
    return claimed;
  }

  private onEvent(e: JobEvent): void {
    const r = this.running.get(e.jobId);
    if (!r) return; // cancelled
    const { task } = r;
    if (e.type === "progress") {
      this.progress.set(task.documentId, e.done, e.total, e.unit);
    } else if (e.type === "rows") {
      const w = e.first ? this.sink.replace(task, e.rows) : this.sink.append(task, e.rows);
      const sent = performance.now();
      // The job may send its next slice once this one is in (or has failed, which fails the task).
      w.then(
        () => {
          r.writeSeconds += (performance.now() - sent) / 1000;
          this.d.pool.ack(e.jobId);
        },
        (err) => {
          r.failed = err;
          this.d.pool.ack(e.jobId);
        },
      );
      r.writes.push(w);
    } else if (e.type === "page") {
      // A page that cannot be stored (its crawl source deleted meanwhile, say) is left for the next sync.
      const stored = this.crawls.page(task, e.page);
      stored.catch((err) => this.quiet.warn("could not store a crawled page", { error: err }));
      r.writes.push(stored);
    } else {
      const outcome = outcomeOf(e);
      const f = this.finish(e.jobId, r, outcome, ("stages" in e ? e.stages : undefined) ?? {}).catch((err) =>
        this.d.log.error("could not finish an ingestion task", { error: err }),
      );
      this.finishing.add(f);
      void f.finally(() => this.finishing.delete(f));
      this.kick(); // the worker is free now; its rows commit meanwhile
    }
  }

  /** Waits for the job's rows to be committed, then records the outcome (with the next group commit). */
  private async finish(jobId: string, r: RunningTask, outcome: Outcome, stages: StageTimes): Promise<void> {
    await Promise.allSettled(r.writes);
    if (!this.running.has(jobId)) return this.crawls.drop(jobId);
    // The crawl's end (vanished pages, its report) must not keep its task from ending.
    if (outcome.ok && outcome.crawl)
      await this.crawls
        .finish(r.task, outcome.crawl)
        .catch((err) => this.d.log.warn("could not finish a crawl's sync", { error: err }));
    else this.crawls.drop(jobId);
    const settled = settleOutcome(outcome, r.failed, this.d.config.dataDir);
    const { full } = settled;
    outcome = settled.outcome;
    const { task } = r;
    this.progress.drop(task.documentId);
    const done = await recordOutcome(this.writes, task, outcome, () => this.stopped, this.quiet);
    if (!done) return; // stopping: the restart takes the task up again
    this.running.delete(jobId);
    if (done.result) {
      const write = r.writes.length > 0 ? { write: r.writeSeconds } : {};
      this.stats.record({
        sourceId: task.documentId,
        collectionId: task.collectionId,
        type: r.type,
        result: done.result,
        outcome,
        stages: { ...stages, ...write },
        seconds: (performance.now() - r.started) / 1000,
      });
    }
    if (done.clearRows) {
      await this.sink
        .clear(task)
        .catch((err) => this.d.log.warn("could not clear a failed document's rows", { error: err }));
    }
    if (done.dropGeneration !== null) {
      await this.d.store
        .dropGeneration(task.collectionId, done.dropGeneration)
        .catch((err) => this.d.log.warn("could not drop an old index generation", { error: err }));
    }
    if (done.gated) this.onBuilt?.(task.collectionId);
    // Only now that the failure is recorded may the disk watch queue it again (once there is more room).
    if (full) this.d.disk?.noteFull(full.free);
    this.kick();
  }

  /** The documents among `ids` whose rows may still be written into this generation. */
  private writable(collectionId: string, generation: number, ids: string[]): Set<string> {
    const col = findCollectionById(this.d.db, collectionId);
    if (!col || !isLive(col, generation)) return new Set();
    return existingDocumentIds(this.d.db, ids);
  }
}
