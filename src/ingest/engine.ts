/**
 * The ingestion engine: durable tasks in SQLite, run by the worker pool, written
 * through the chunk sink. Every write is a task with a status a person can read;
 * a restart requeues what was running, and the reconciler makes LanceDB agree.
 */
import { WriteBatch } from "../db/batch";
import type { Db } from "../db/client";
import { findCollectionById } from "../db/repo/collections";
import { deleteDocumentRow, findDocumentById } from "../db/repo/documents";
import { existingIds } from "../db/repo/task-batches";
import { pruneFinishedTasks, queuedTaskCount } from "../db/repo/tasks";
import type { DocumentRow } from "../db/schema";
import { throttledLogger } from "../log-throttle";
import {
  type DocumentDraft,
  type Enqueued,
  insertNewDocument,
  insertNewDocuments,
  newDocumentRow,
  requeueDocument,
  type UploadedFile,
} from "./tasks/queue";
import { type UpsertPlan, type Upserted, upsertDocumentTx } from "./write/upsert";
import { type UpsertResult, upsertDocumentsTx } from "./write/upsert-many";
import { recordSourceEvent } from "./events";
import { endReindexIfBuilt, isLive, startReindex } from "./generations";
import type { EngineDeps } from "./run/engine-deps";
import { ChunkSink } from "./write/sink";
import { QueueRoom } from "./tasks/queue-room";
import { IngestStats } from "./tasks/stats";
import { CrawlSync } from "./sync/crawl-sync";
import { FolderSync } from "./sync/folder-sync";
import { GitSync } from "./sync/git-sync";
import { removeClone } from "./git/repo";
import { TaskScheduler } from "./run/scheduler";
import { TextsInHand } from "./tasks/texts-in-hand";
import { dropLostClaims, giveBack, TaskLeases } from "./tasks/leases";
import { crawledPageIds, findSourceFetch } from "../db/repo/source-fetches";

/** Told when a gated re-index has built its generation (generations.ts); it decides the switch. */
export type BuiltListener = (collectionId: string) => void;

export class IngestEngine {
  readonly sink: ChunkSink;
  /** Counters, stage durations and the log line of each ended task. */
  readonly stats: IngestStats;
  /** Claims, runs and ends the tasks (run/scheduler.ts). */
  private readonly tasks: TaskScheduler;
  /** Group commit for new documents, finished tasks and progress. */
  private readonly writes: WriteBatch;
  /** The queue's bound (tasks/queue-room.ts). */
  private readonly room: QueueRoom;
  /** New text sources' texts, until their claim (tasks/texts-in-hand.ts). */
  private readonly texts = new TextsInHand();
  /** Replicas: renews this process's task leases and reclaims expired ones (tasks/leases.ts). */
  private leases: TaskLeases | null = null;

  constructor(private readonly d: EngineDeps) {
    const quiet = throttledLogger(d.log);
    this.stats = new IngestStats(d.log);
    this.sink = new ChunkSink(
      d.vectorStore,
      (collectionId, generation, ids, write) => this.writable(collectionId, generation, ids, write),
      // A job's rows come before its ending: with no job in the workers, none are on their way.
      () => d.pool.busy > 0,
      d.replica,
    );
    this.writes = new WriteBatch(d.db);
    this.room = new QueueRoom(
      d.db,
      () => this.tasks.size,
      () => d.vectorStore.queriesWaiting,
    );
    const crawls = new CrawlSync(d.db, this);
    this.tasks = new TaskScheduler({
      d,
      writes: this.writes,
      sink: this.sink,
      stats: this.stats,
      crawls,
      folders: new FolderSync(d.db, this, d.vectorStore),
      gits: new GitSync(d.db, this),
      texts: this.texts,
      quiet,
      built: (collectionId) => this.onBuilt?.(collectionId),
    });
  }

  /** Starts taking tasks; services.ts runs beat() every second (tools/scheduler.ts). */
  start(): void {
    this.tasks.start();
    this.leases = this.d.replica
      ? new TaskLeases(
          this.d.db,
          this.d.log,
          () => this.tasks.claims(),
          (lost) => this.tasks.cancelJobs(lost),
          () => this.kick(),
          this.d.replicaLeaseMs,
        )
      : null;
    this.kick();
  }

  /** The periodic look: leases renewed or reclaimed (replicas), and tasks that fell due taken. */
  beat(now = Date.now()): void {
    this.leases?.tick(now);
    this.kick();
  }

  async stop(): Promise<void> {
    this.leases = null;
    await this.tasks.stop();
    await this.writes.flush();
    // A server alone takes its own tasks up again at restart; a replica's go to the others now.
    if (this.d.replica) await giveBack(this.d.db, this.tasks.claims(), this.d.log);
  }

  /** Forgets finished tasks older than a week; run by the hourly housekeeping. */
  async pruneTasks(): Promise<void> {
    const before = Date.now() - 7 * 86_400_000;
    await this.d.db.atomically((t) => pruneFinishedTasks(t, before));
  }

  /** True while any task is running or waiting to run now. */
  async busy(): Promise<boolean> {
    return this.tasks.size > 0 || (await queuedTaskCount(this.d.db.reader)) > 0;
  }

  /** Refuses (QueueFullError) unless the queue has room for `n` more tasks (tasks/queue-room.ts). */
  requireRoom(n = 1): Promise<void> {
    return this.room.require(n);
  }

  /**
   * Queues a stored document again (a retry, a repair) in its collection's target
   * generation. With `upload`, the document first takes its uploaded file, once, in
   * the same transaction, so a document never has its file without its task; `check`
   * runs first in that transaction (a duplicate file's refusal: core/duplicates.ts), and
   * what it throws undoes it all.
   */
  async enqueue(
    documentId: string,
    opts: { upload?: UploadedFile; check?: (tx: Db) => Promise<void> } = {},
  ): Promise<Enqueued> {
    const result = await this.d.db.atomically(async (tx) => {
      await opts.check?.(tx);
      return requeueDocument(tx, documentId, opts, Date.now());
    });
    if (result === "queued") this.kick();
    return result;
  }

  /**
   * Creates a document: its row (and a text source's content) with its task, unless
   * it waits for its file, in the next group commit. Resolves once committed, with
   * the row, or null when the collection was deleted first. `also` runs in the same
   * savepoint, after the insert; what it throws undoes the document.
   */
  async createDocument(
    draft: DocumentDraft,
    content?: string,
    also?: (t: Db, row: DocumentRow) => Promise<void> | void,
  ): Promise<DocumentRow | null> {
    const row = newDocumentRow(draft);
    const stored = await this.writes.run(async (t) => {
      const col = await findCollectionById(t, row.collectionId);
      if (col) await insertNewDocument(t, row, col, Date.now(), content);
      if (col) await also?.(t, row);
      return col !== undefined;
    });
    if (!stored) return null;
    this.created(row, content);
    if (row.status === "queued") {
      this.room.added();
      this.kick();
    }
    return row;
  }

  /**
   * Creates queued documents of one collection (drafts with their content hash, no
   * texts) in the next group commit, a few statements for all (tasks/queue.ts); `also` runs
   * after their insert in the same savepoint. If that fails, each is created on its own
   * (createDocument), so a refused one fails alone. Outcomes in the order of the drafts
   * (a null row: the collection is gone).
   */
  async createDocuments(
    drafts: DocumentDraft[],
    also: (t: Db, rows: DocumentRow[]) => Promise<void>,
  ): Promise<PromiseSettledResult<DocumentRow | null>[]> {
    const rows = drafts.map((d) => newDocumentRow(d));
    if (rows.length === 0) return [];
    const alike = rows.every((r) => r.status === "queued" && r.collectionId === rows[0]!.collectionId);
    const stored = alike
      ? await this.writes
          .run(async (t) => {
            const col = await findCollectionById(t, rows[0]!.collectionId);
            if (!col) return false;
            await insertNewDocuments(
              t,
              rows.map((row) => ({ row })),
              col,
              Date.now(),
            );
            await also(t, rows);
            return true;
          })
          .catch(() => null)
      : null;
    if (stored === null)
      return Promise.allSettled(drafts.map((d) => this.createDocument(d, undefined, (t, r) => also(t, [r]))));
    if (stored) {
      for (const row of rows) this.created(row);
      this.room.added(rows.length);
    }
    this.kick();
    return rows.map((row) => ({ status: "fulfilled", value: stored ? row : null }));
  }

  /**
   * Creates, replaces or leaves a document by its external id (upsert.ts), in the
   * next group commit: the items of a batch request share one transaction, each in
   * its own savepoint, so a refused item undoes only itself. Null when the collection is gone.
   */
  async upsertDocument(plan: UpsertPlan): Promise<Upserted | null> {
    const done = await this.writes.run(async (t) => {
      const r = await upsertDocumentTx(t, plan, Date.now());
      // Cancelled before any claim of this commit can start the new version's task.
      if (r?.status === "replaced") this.cancelDocument(r.row.id);
      return r;
    });
    if (done?.status === "created") this.created(done.row, plan.content);
    if (done?.queued) {
      this.room.added();
      this.kick();
    }
    return done;
  }

  /**
   * The items of a batch request (distinct external ids of one collection, no files) in
   * the next group commit, the new documents with a few statements for all
   * (upsert-many.ts). Results in the order of the plans.
   */
  async upsertDocuments(plans: UpsertPlan[]): Promise<UpsertResult[]> {
    const results = await this.writes.run((t) =>
      upsertDocumentsTx(t, plans, Date.now(), (id) => this.cancelDocument(id)),
    );
    for (const [i, r] of results.entries()) {
      if (!r.ok || !r.value) continue;
      if (r.value.status === "created") this.created(r.value.row, plans[i]!.content);
      if (r.value.queued) this.room.added();
    }
    this.kick();
    return results;
  }

  /**
   * Runs `fn` (which queues `documentId` again) in the next group commit, cancelling
   * the document's running job in the same turn, then looks for work.
   */
  async requeueWith<T>(fn: (t: Db) => Promise<T> | T, documentId: string): Promise<T> {
    const result = await this.writes.run(async (t) => {
      const r = await fn(t);
      this.cancelDocument(documentId);
      return r;
    });
    this.room.added();
    this.kick();
    return result;
  }

  /** A document just stored: new to the sink, and a text source's text kept for its claim. */
  private created(row: DocumentRow, content?: string): void {
    this.sink.markNew(row.id);
    if (content !== undefined && row.contentHash) this.texts.keep(row.id, row.contentHash, content);
  }

  /** Stops a document's running job (its rows are then refused by the sink). */
  cancelDocument(documentId: string): void {
    this.tasks.cancelDocument(documentId);
  }

  /** Deletes a document everywhere, even mid-ingestion: job, row, tasks, file, chunks. */
  async removeDocument(collectionId: string, documentId: string): Promise<void> {
    // Its job first, so that a crawl adds no page while its pages go with it (a folder source's files alike).
    this.cancelDocument(documentId);
    if ((await findSourceFetch(this.d.db.reader, documentId))?.crawl)
      await this.removeCrawledPages(collectionId, documentId);
    // Tasks go with the row (ON DELETE CASCADE); if it was the last one a re-index waited for, switch now.
    const { file, end } = await this.d.db.atomically(async (tx) => {
      // The stored file's name: the document id, but an object of its own for a documents-API file in a bucket.
      const filePath = (await findDocumentById(tx, documentId))?.filePath;
      await recordSourceEvent(tx, "source.deleted", documentId, { status: "deleted" });
      await deleteDocumentRow(tx, documentId);
      return { file: filePath ?? documentId, end: await endReindexIfBuilt(tx, collectionId, Date.now()) };
    });
    await this.d.files.remove(collectionId, file);
    await this.d.vectorStore.deleteDocument(collectionId, documentId);
    await removeClone(this.d.config.dataDir, documentId);
    if (end.drop !== null) await this.d.vectorStore.dropGeneration(collectionId, end.drop);
    if (end.gated) this.onBuilt?.(collectionId);
  }

  /** Set by the evaluation gate (features/evals/gate.ts): told when a gated re-index has built. */
  onBuilt: BuiltListener | null = null;

  /** Deletes a crawl source's pages, once a page already in the group commit is committed too. */
  private async removeCrawledPages(collectionId: string, crawlSourceId: string): Promise<void> {
    await this.writes.run(() => undefined);
    for (const page of await crawledPageIds(this.d.db.reader, crawlSourceId))
      await this.removeDocument(collectionId, page);
  }

  /**
   * Re-index: rebuild every document with the collection's current settings (generations.ts).
   * With `gate` (an evaluation set id) the new generation switches only if it does not do worse.
   */
  async reindex(collectionId: string, gate: string | null = null): Promise<void> {
    for (const g of await startReindex(this.d.db, collectionId, Date.now(), gate))
      await this.d.vectorStore.dropGeneration(collectionId, g);
    this.kick();
  }

  /** Stops the running jobs of a collection being deleted. */
  cancelCollection(collectionId: string): void {
    this.tasks.cancelCollection(collectionId);
  }

  /** Starts queued tasks while the workers have room (run/scheduler.ts). */
  kick(): void {
    this.tasks.kick();
  }

  /**
   * Calls `write` with the documents among `ids` whose rows may still be written into
   * this generation (the sink's KeepFilter), in a transaction of its own. A delete (of
   * a document, a collection, a generation) commits before it, and is seen, or after
   * `write` has queued its rows, and then queues its own removal from LanceDB behind them.
   */
  private writable<T>(
    collectionId: string,
    generation: number,
    ids: string[],
    write: (alive: Set<string>) => T,
  ): Promise<T> {
    return this.d.db.atomically(async (tx) => {
      const col = await findCollectionById(tx, collectionId);
      const alive = col && isLive(col, generation) ? await existingIds(tx, ids) : new Set<string>();
      if (this.d.replica) await dropLostClaims(tx, alive, this.tasks.claimsOf(collectionId, generation, ids));
      return write(alive);
    });
  }
}
