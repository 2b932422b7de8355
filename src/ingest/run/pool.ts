/**
 * A pool of Bun Worker threads running ingestion jobs. Each worker takes jobs
 * until their combined weight (about 128 KB of document each) reaches its
 * capacity: many small documents run side by side (their embedding calls share
 * batches), while a few big ones fill a worker, which bounds memory. A job is
 * cancelled by message; one that goes its time cap without progress is failed, and
 * if its worker does not let go, the worker is replaced and its other jobs are handed
 * back as transient failures (they are retried). A crashed worker likewise.
 * Jobs of one remote model go to the same worker while it has room, so that their
 * texts share that worker's embedding batches.
 * A worker starts with the first job sent its way, not with the pool: each holds about
 * 50 MB and takes a few hundred milliseconds of CPU to load its code, which a server
 * that is only starting, or only answering queries, need not pay
 * (docs/notes/2026-12-06-release.md, Start).
 */
import type { Logger } from "../../log";
import type { EmbedCall } from "../../embed/calls";
import type { FromWorker, Job, ToWorker } from "../job-types";
import {
  type AssignedJob,
  batchKey,
  emptySlot,
  ENDINGS,
  forgetJob,
  type JobHandlers,
  jobWeight,
  type Slot,
} from "./pool-slots";
import { encodeTurn } from "./worker-wire";

/**
 * Where the worker's code is. From source it sits beside this file; inside the
 * compiled binary it is the second entry point, named relative to src/.
 */
function workerEntry(): string {
  return import.meta.url.includes("$bunfs") ? "./ingest/run/worker.ts" : new URL("./worker.ts", import.meta.url).href;
}

export { jobWeight, type JobHandlers };

/** Hears of each call a worker made to an embedding backend (/metrics). */
export type EmbedListener = (call: EmbedCall) => void;

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private closed = false;
  /** Set by whoever counts embedding calls; none by default. */
  onEmbed: EmbedListener = () => {};
  /**
   * Hears of a cancelled job once its worker has ended it (or was replaced): nothing of it
   * runs any more. A Git sync deleted mid-fetch removes its clone then (services.ts).
   */
  onStopped: (job: Job) => void = () => {};

  constructor(
    size: number,
    private readonly log: Logger,
    private readonly capacity = 32,
    private readonly timeCapMs = 15 * 60_000,
    /** How much below the main thread the workers run (thread-priority.ts); 0: the same priority. */
    private readonly nice = 0,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(emptySlot());
  }

  /** Worker threads started so far: each starts with the first job sent to its slot. */
  get started(): number {
    return this.slots.filter((s) => s.worker !== null).length;
  }

  get size(): number {
    return this.slots.length;
  }

  /** Room left, in weight units; a job may start while this is above zero. */
  get idle(): number {
    let n = 0;
    for (const s of this.slots) n += Math.max(0, this.capacity - s.load);
    return n;
  }

  /** Each worker's load, in weight units. */
  get loads(): number[] {
    return this.slots.map((s) => s.load);
  }

  get busy(): number {
    return this.slots.reduce((n, s) => n + s.jobs.size, 0);
  }

  /**
   * Starts a job on the least loaded worker, or on one already running jobs of its remote
   * model (a big job may take it past its capacity); false when all are full.
   */
  run(job: Job, handlers: JobHandlers, bytes: number | null = 0): boolean {
    const send = this.assign(job, handlers, bytes);
    send?.();
    return send !== null;
  }

  /**
   * Takes room for a job on a worker (as run() picks it) without sending it yet (the
   * caller sends it once its claim is committed, or gives the room back with
   * release()); null when all are full. `bytes` null: a size not known yet.
   */
  assign(job: Job, handlers: JobHandlers, bytes: number | null): (() => void) | null {
    const batch = batchKey(job);
    let slot = batch === null ? undefined : this.slots.find((s) => s.load < this.capacity && s.batches.has(batch));
    if (!slot) for (const s of this.slots) if (!slot || s.load < slot.load) slot = s;
    if (!slot || this.closed || slot.load >= this.capacity) return null;
    const target = slot;
    const capMs = this.capOf(job);
    const weight = jobWeight(bytes);
    slot.jobs.set(job.jobId, { job, handlers, timer: undefined, capMs, weight, batch });
    slot.load += weight;
    if (batch !== null) slot.batches.set(batch, (slot.batches.get(batch) ?? 0) + 1);
    // The cap starts with the send, after the claim's commit: a timer set in the claim's
    // transaction would run in that transaction's async context (db/store.ts).
    return () => {
      const r = target.jobs.get(job.jobId);
      if (r?.job !== job) return;
      r.timer = setTimeout(() => this.timeOut(target, job.jobId), capMs);
      this.post(target, { type: "job", job });
    };
  }

  /** Gives back the room of an assigned job that was never sent. */
  release(jobId: string): void {
    const slot = this.slotOf(jobId);
    if (slot) forgetJob(slot, jobId);
  }

  /** Tells a job its rows are committed, so it may send more. */
  ack(jobId: string): void {
    const slot = this.slotOf(jobId);
    if (slot) this.post(slot, { type: "ack", jobId });
  }

  /** Stops one job, if it runs, without reporting it (but to onStopped once it has ended). */
  cancelJob(jobId: string): void {
    const slot = this.slotOf(jobId);
    if (!slot) return;
    this.stop(slot, jobId);
  }

  /** Stops the running job of a document, if any, without reporting it. */
  cancelDocument(documentId: string): void {
    for (const slot of this.slots) {
      for (const [jobId, r] of slot.jobs) if (r.job.document.id === documentId) this.stop(slot, jobId);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) {
      if (s.probe) clearTimeout(s.probe);
      for (const jobId of [...s.jobs.keys()]) forgetJob(s, jobId);
      s.worker?.terminate();
    }
  }

  private spawn(index: number): Worker {
    // smol: a smaller heap that collects more eagerly; ingestion holds little between jobs.
    const worker = new Worker(workerEntry(), { smol: true });
    // Its first message, so the worker's first job already runs below the main thread.
    if (this.nice > 0) worker.postMessage(encodeTurn([{ type: "priority", nice: this.nice }]));
    // A worker posts what its jobs said in a turn as one message (worker.ts).
    worker.onmessage = (ev: MessageEvent<FromWorker[]>) => {
      for (const e of ev.data) this.deliver(this.slots[index]!, e);
    };
    worker.onerror = (ev) => {
      this.log.error("ingestion worker crashed", { error: ev.message });
      // The cause is the runtime's or a parser's words, for the log; the source says what to do.
      this.replace(
        index,
        "the ingestion worker stopped unexpectedly while reading it; retry, and if it fails again the server log says why",
      );
    };
    return worker;
  }

  private deliver(slot: Slot, e: FromWorker): void {
    if (e.type === "embed") {
      this.onEmbed(e.call);
      return;
    }
    if (e.type === "pong") {
      if (slot.probe) clearTimeout(slot.probe);
      slot.probe = null;
      return;
    }
    if (e.type === "stopped") {
      this.stopped(slot, e.jobId);
      return;
    }
    const r = slot.jobs.get(e.jobId);
    if (!r) return; // a cancelled job's late message
    // Every ending gives the job's room back ("unchanged" too: a re-fetch that found the same text).
    if (ENDINGS.has(e.type)) forgetJob(slot, e.jobId);
    else this.restartCap(slot, r);
    r.handlers.onEvent(e);
  }

  /**
   * The time cap is a bound on a job's silence, not on its length (docs/operations.md): a
   * scanned PDF of hundreds of pages takes hours of OCR yet reports every page, while a
   * job that hangs reports nothing. One OCR page may take its whole page timeout, so
   * the cap is never shorter than that.
   */
  private capOf(job: Job): number {
    return Math.max(this.timeCapMs, job.ocr.pageTimeoutMs);
  }

  /** Any event short of an ending (progress, a slice of rows, a crawled page) is progress: the cap starts again. */
  private restartCap(slot: Slot, r: AssignedJob): void {
    clearTimeout(r.timer);
    r.timer = setTimeout(() => this.timeOut(slot, r.job.jobId), r.capMs);
  }

  private timeOut(slot: Slot, jobId: string): void {
    const r = slot.jobs.get(jobId);
    if (!r) return;
    forgetJob(slot, jobId);
    this.post(slot, { type: "cancel", jobId });
    const minutes = Math.round(r.capMs / 60000);
    r.handlers.onEvent({
      type: "error",
      jobId,
      message: `ingestion took longer than ${minutes} minutes and was stopped`,
      transient: false,
    });
    // A job stuck in synchronous code cannot see the cancel, nor answer a ping: then the worker is replaced.
    if (slot.probe) return;
    slot.probe = setTimeout(() => {
      slot.probe = null;
      if (!this.closed) this.replace(this.slots.indexOf(slot), "the ingestion worker was restarted after a stuck job");
    }, 5000);
    this.post(slot, { type: "ping" });
  }

  /** Terminates a worker and starts a fresh one; its jobs fail as transient (they are retried). */
  private replace(index: number, message: string): void {
    const slot = this.slots[index]!;
    if (slot.probe) clearTimeout(slot.probe);
    slot.probe = null;
    const orphans = [...slot.jobs.values()];
    for (const r of orphans) forgetJob(slot, r.job.jobId);
    const stopped = [...slot.stopping.values()];
    slot.stopping.clear();
    if (slot.worker) {
      slot.worker.onmessage = null;
      slot.worker.onerror = null;
      slot.worker.terminate();
    }
    slot.outbox = [];
    // The next message for the slot starts a fresh one.
    slot.worker = null;
    for (const r of orphans) r.handlers.onEvent({ type: "error", jobId: r.job.jobId, message, transient: true });
    for (const job of stopped) this.onStopped(job);
  }

  /** Cancels an assigned job: forgotten now, told to the worker, heard of again when it ends. */
  private stop(slot: Slot, jobId: string): void {
    const r = slot.jobs.get(jobId);
    if (r) slot.stopping.set(jobId, r.job);
    forgetJob(slot, jobId);
    this.post(slot, { type: "cancel", jobId });
  }

  /** A cancelled job has ended in its worker: onStopped hears of it. */
  private stopped(slot: Slot, jobId: string): void {
    const job = slot.stopping.get(jobId);
    if (!job) return;
    slot.stopping.delete(jobId);
    this.onStopped(job);
  }

  private slotOf(jobId: string): Slot | undefined {
    return this.slots.find((s) => s.jobs.has(jobId));
  }

  /**
   * Queues a message for the worker; the messages of one turn (the jobs of a scheduling
   * step, their acks) go as one (worker-wire.ts): a message costs both threads far
   * more than its few fields, and small documents come by the hundred.
   */
  private post(slot: Slot, msg: ToWorker): void {
    slot.outbox.push(msg);
    if (slot.outbox.length > 1) return;
    queueMicrotask(() => {
      const msgs = slot.outbox;
      slot.outbox = [];
      if (msgs.length > 0 && !this.closed)
        (slot.worker ??= this.spawn(this.slots.indexOf(slot))).postMessage(encodeTurn(msgs));
    });
  }
}
