/**
 * A pool of Bun Worker threads running ingestion jobs, one job per worker at a
 * time. A job that runs past its time cap, or whose document is deleted, has its
 * worker terminated and replaced; a worker that crashes fails only its job.
 */
import type { Logger } from "../log";
import type { Job, JobEvent } from "./job";

/**
 * Where the worker's code is. From source it sits beside this file; inside the
 * compiled binary it is the second entry point, named relative to src/.
 */
function workerEntry(): string {
  return import.meta.url.includes("$bunfs") ? "./ingest/worker.ts" : new URL("./worker.ts", import.meta.url).href;
}

export interface JobHandlers {
  onEvent(e: JobEvent): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  handlers: JobHandlers | null;
  timer: Timer | null;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private closed = false;

  constructor(
    size: number,
    private readonly log: Logger,
    private readonly timeCapMs = 15 * 60_000,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.slots.length;
  }

  get idle(): number {
    return this.slots.filter((s) => !s.job).length;
  }

  get busy(): number {
    return this.slots.length - this.idle;
  }

  /** Starts a job on an idle worker; false when all are busy. */
  run(job: Job, handlers: JobHandlers): boolean {
    const slot = this.slots.find((s) => !s.job);
    if (!slot || this.closed) return false;
    slot.job = job;
    slot.handlers = handlers;
    slot.timer = setTimeout(() => this.abort(slot, `ingestion took longer than ${Math.round(this.timeCapMs / 60000)} minutes and was stopped`), this.timeCapMs);
    slot.worker.postMessage(job);
    return true;
  }

  /** Stops the running job of a document, if any, without reporting it. */
  cancelDocument(documentId: string): void {
    for (const slot of this.slots) if (slot.job?.document.id === documentId) this.replace(slot);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) {
      if (s.timer) clearTimeout(s.timer);
      s.worker.terminate();
    }
  }

  private spawn(): Slot {
    const worker = new Worker(workerEntry());
    const slot: Slot = { worker, job: null, handlers: null, timer: null };
    worker.onmessage = (ev: MessageEvent<JobEvent>) => this.deliver(slot, ev.data);
    worker.onerror = (ev) => {
      this.log.error("ingestion worker crashed", { error: ev.message });
      this.abort(slot, `the ingestion worker crashed: ${ev.message}`);
    };
    return slot;
  }

  private deliver(slot: Slot, e: JobEvent): void {
    if (!slot.job || e.jobId !== slot.job.jobId) return; // a cancelled job's late message
    const handlers = slot.handlers!;
    if (e.type === "done" || e.type === "error") this.release(slot);
    handlers.onEvent(e);
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.handlers = null;
    slot.timer = null;
  }

  private abort(slot: Slot, message: string): void {
    const job = slot.job;
    const handlers = slot.handlers;
    this.replace(slot);
    if (job && handlers) handlers.onEvent({ type: "error", jobId: job.jobId, message, transient: false });
  }

  /** Terminates a slot's worker and puts a fresh one in its place. */
  private replace(slot: Slot): void {
    this.release(slot);
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
    if (this.closed) return;
    const fresh = this.spawn();
    slot.worker = fresh.worker;
    fresh.worker.onmessage = (ev: MessageEvent<JobEvent>) => this.deliver(slot, ev.data);
    fresh.worker.onerror = (ev) => this.abort(slot, `the ingestion worker crashed: ${ev.message}`);
  }
}
