/**
 * Task scheduling: claims queued tasks while the claim window has room (claim-window.ts),
 * hands them to the pool once the claims are committed, routes
 * what the jobs report (progress, rows, crawled pages) and records their endings.
 */
import type { WriteBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { savepoint } from "../../db/prepared";
import type { Task } from "../../db/schema";
import type { Logger } from "../../log";
import type { CrawlSync } from "../sync/crawl-sync";
import type { FolderSync } from "../sync/folder-sync";
import type { GitSync } from "../sync/git-sync";
import type { EngineDeps } from "./engine-deps";
import { ClaimWindow } from "./claim-window";
import { claimJobs } from "../tasks/claims";
import { LEASE_MS, REPLICA_LEASE_MS } from "../tasks/leases";
import { collectionsOnce } from "../tasks/job-for";
import type { Job, JobEvent, StageTimes } from "../job-types";
import { EndingBatch } from "../tasks/endings";
import { type Outcome, outcomeOf, settleOutcome } from "../tasks/outcome";
import { ProgressBuffer } from "../tasks/progress";
import type { ChunkSink } from "../write/sink";
import type { IngestStats } from "../tasks/stats";
import type { TextsInHand } from "../tasks/texts-in-hand";

/** A claimed task whose room in the pool is taken; `send` hands it to its worker. */
interface Claimed {
  jobId: string;
  send: () => void;
}

interface RunningTask {
  task: Task;
  writes: Promise<void>[];
  failed: unknown;
  /** The document's type, and what /metrics and the log learn of the task (tasks/stats.ts). */
  type: string;
  started: number;
  writeSeconds: number;
}

/** What the scheduler shares with the engine that owns it. */
export interface SchedulerParts {
  d: EngineDeps;
  writes: WriteBatch;
  sink: ChunkSink;
  stats: IngestStats;
  crawls: CrawlSync;
  folders: FolderSync;
  gits: GitSync;
  /** New text sources' texts, which their claims take instead of reading them back. */
  texts: TextsInHand;
  /** For failures that recur on every tick: once, then once a minute. */
  quiet: Logger;
  /** Told when a gated re-index has built its generation. */
  built: (collectionId: string) => void;
}

export class TaskScheduler {
  private readonly running = new Map<string, RunningTask>();
  /** Endings being recorded (finish()): a stop waits for them. */
  private readonly finishing = new Set<Promise<void>>();
  private readonly progress: ProgressBuffer;
  /** Endings of a turn, recorded together (tasks/endings.ts). */
  private readonly endings: EndingBatch;
  private readonly window: ClaimWindow;
  private started = false;
  private stopped = false;
  private kickQueued = false;

  constructor(private readonly p: SchedulerParts) {
    this.progress = new ProgressBuffer(p.writes, p.quiet);
    this.endings = new EndingBatch(p.writes, () => this.stopped, p.quiet);
    this.window = new ClaimWindow(p.d, p.sink);
  }

  /** Number of tasks claimed and not yet ended. */
  get size(): number {
    return this.running.size;
  }

  /** The tasks claimed and not yet ended, each at its attempt (their leases are renewed: tasks/leases.ts). */
  claims(): Task[] {
    return [...this.running.values()].map((r) => r.task);
  }

  /** The running claims of the documents `ids` in one table, by document. */
  claimsOf(collectionId: string, generation: number, ids: string[]): Map<string, Task> {
    const wanted = new Set(ids);
    const out = new Map<string, Task>();
    for (const { task } of this.running.values())
      if (task.collectionId === collectionId && task.generation === generation && wanted.has(task.documentId))
        out.set(task.documentId, task);
    return out;
  }

  /** Stops the jobs of claims another replica took or that ended meanwhile (job ids are claim keys). */
  cancelJobs(jobIds: Set<string>): void {
    for (const jobId of jobIds) {
      const r = this.running.get(jobId);
      if (!r) continue;
      this.p.d.pool.cancelJob(jobId);
      this.running.delete(jobId);
      this.progress.drop(r.task.documentId);
    }
  }

  start(): void {
    this.started = true;
  }

  /** Stops claiming; resolves once the endings being recorded are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.p.d.pool.close();
    await this.p.sink.drain();
    // An ending being recorded finishes its work (a re-index's switch drops the old index).
    await Promise.allSettled([...this.finishing]);
  }

  /** Stops a document's running job (its rows are then refused by the sink). */
  cancelDocument(documentId: string): void {
    this.p.d.pool.cancelDocument(documentId);
    for (const [jobId, r] of this.running) if (r.task.documentId === documentId) this.running.delete(jobId);
  }

  /** Stops the running jobs of a collection being deleted. */
  cancelCollection(collectionId: string): void {
    for (const r of [...this.running.values()])
      if (r.task.collectionId === collectionId) this.cancelDocument(r.task.documentId);
  }

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
    void this.p.writes
      .run(async (t) => {
        this.kickQueued = false;
        claimed = await this.startQueued(t);
      })
      // Jobs go to the workers only once their claims are committed; if the commit fails,
      // the claims are undone and so is their room in the pool.
      .then(() => {
        for (const c of claimed) c.send();
      })
      .catch((err) => {
        this.undo(claimed);
        this.p.quiet.error("could not start ingestion tasks", { error: err });
      })
      .finally(() => (this.kickQueued = false));
  }

  private hasCapacity(): boolean {
    return this.window.hasRoom(this.running.size);
  }

  /**
   * Claims tasks, up to the window's room at a time (tasks/claims.ts), and takes room for them in the pool
   * while there is room; never throws, so the steps done before an error still commit
   * with their jobs. A failed step rolls back (its savepoint) and gives its room back.
   */
  private async startQueued(t: Db): Promise<Claimed[]> {
    const claimed: Claimed[] = [];
    const collectionOf = collectionsOnce(t);
    let step: Claimed[] = [];
    const place = (task: Task, job: Job): boolean => {
      // idle > 0: a task always finds room (assign() only refuses a full pool).
      if (this.stopped || !this.hasCapacity()) return false;
      this.running.set(job.jobId, {
        task,
        writes: [],
        failed: null,
        type: job.document.type,
        started: performance.now(),
        writeSeconds: 0,
      });
      // A url or api source's size is not known before it is fetched: a whole unit.
      const bytes = job.document.content?.length ?? job.document.fileSize ?? null;
      const send = this.p.d.pool.assign(job, { onEvent: (e) => this.onEvent(e) }, bytes);
      if (!send) this.running.delete(job.jobId);
      else step.push({ jobId: job.jobId, send });
      return send !== null;
    };
    try {
      for (;;) {
        if (this.stopped || !this.hasCapacity()) break;
        step = [];
        const want = this.window.room(this.running.size);
        const lease = this.p.d.replica ? (this.p.d.replicaLeaseMs ?? REPLICA_LEASE_MS) : LEASE_MS;
        const n = await savepoint(t, (tx) => claimJobs(tx, want, this.p.d, collectionOf, place, lease, this.p.texts));
        claimed.push(...step);
        if (n < want) break;
      }
    } catch (err) {
      this.undo(step);
      this.p.quiet.error("could not start an ingestion task", { error: err });
    }
    return claimed;
  }

  /** Gives back the room of claims that did not commit. */
  private undo(claimed: Claimed[]): void {
    for (const c of claimed) {
      this.p.d.pool.release(c.jobId);
      this.running.delete(c.jobId);
    }
  }

  private onEvent(e: JobEvent): void {
    const r = this.running.get(e.jobId);
    if (!r) return; // cancelled
    const { task } = r;
    if (e.type === "progress") {
      this.progress.set(task.documentId, e.done, e.total, e.unit);
    } else if (e.type === "rows") {
      const { sink, pool } = { sink: this.p.sink, pool: this.p.d.pool };
      const w = e.first ? sink.replace(task, e.rows) : sink.append(task, e.rows);
      const sent = performance.now();
      // The job may send its next slice once this one is in (or has failed, which fails the task).
      w.then(
        () => {
          r.writeSeconds += (performance.now() - sent) / 1000;
          pool.ack(e.jobId);
        },
        (err) => {
          r.failed = err;
          pool.ack(e.jobId);
        },
      );
      r.writes.push(w);
    } else if (e.type === "page") {
      // A page that cannot be stored (its crawl source deleted meanwhile, say) is left for the next sync.
      const stored = this.p.crawls.page(task, e.page);
      stored.catch((err) => this.p.quiet.warn("could not store a crawled page", { error: err }));
      r.writes.push(stored);
    } else {
      const outcome = outcomeOf(e);
      const f = this.finish(e.jobId, r, outcome, ("stages" in e ? e.stages : undefined) ?? {}).catch((err) =>
        this.p.d.log.error("could not finish an ingestion task", { error: err }),
      );
      this.finishing.add(f);
      void f.finally(() => this.finishing.delete(f));
      // The last job of a burst: a commit waiting for more rows goes now.
      this.p.sink.settle();
      this.kick(); // the worker is free now; its rows commit meanwhile
    }
  }

  /** Waits for the job's rows to be committed, then records the outcome (with the next group commit). */
  private async finish(jobId: string, r: RunningTask, outcome: Outcome, stages: StageTimes): Promise<void> {
    const { d, crawls } = this.p;
    await Promise.allSettled(r.writes);
    if (!this.running.has(jobId)) return crawls.drop(jobId);
    // The crawl's end (vanished pages, its report) must not keep its task from ending.
    if (outcome.ok && outcome.crawl)
      await crawls
        .finish(r.task, outcome.crawl)
        .catch((err) => d.log.warn("could not finish a crawl's sync", { error: err }));
    else crawls.drop(jobId);
    // A folder's walk is applied (its files added, changed, deleted) before its task ends, with the report.
    if (outcome.ok && outcome.folder?.scan) {
      const report = await this.p.folders
        .finish(r.task, outcome.folder.scan)
        .catch((err) => void d.log.warn("could not finish a folder's sync", { error: err }));
      if (report) outcome = { ...outcome, folder: { ...outcome.folder, report } };
    }
    if (outcome.ok && outcome.git?.scan) {
      const report = await this.p.gits
        .finish(r.task, outcome.git.scan)
        .catch((err) => void d.log.warn("could not finish a Git source's sync", { error: err }));
      if (report) outcome = { ...outcome, git: { ...outcome.git, report } };
    }
    const settled = settleOutcome(outcome, r.failed, d.config.dataDir);
    const { full } = settled;
    outcome = settled.outcome;
    const { task } = r;
    this.progress.drop(task.documentId);
    const done = await this.endings.record(task, outcome);
    if (!done) return; // stopping: the restart takes the task up again
    this.running.delete(jobId);
    if (done.result) {
      const write = r.writes.length > 0 ? { write: r.writeSeconds } : {};
      this.p.stats.record({
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
      await this.p.sink
        .clear(task)
        .catch((err) => d.log.warn("could not clear a failed document's rows", { error: err }));
    }
    if (done.dropGeneration !== null) {
      await d.vectorStore
        .dropGeneration(task.collectionId, done.dropGeneration)
        .catch((err) => d.log.warn("could not drop an old index generation", { error: err }));
    }
    if (done.gated) this.p.built(task.collectionId);
    // Only now that the failure is recorded may the disk watch queue it again (once there is more room).
    if (full) d.disk?.noteFull(full.free);
    this.kick();
  }
}
