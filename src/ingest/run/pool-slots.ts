/**
 * The bookkeeping of a worker pool's slots (pool.ts): what a job weighs, which jobs a
 * worker holds and their share of its room and embedding batches.
 */
import { isBuiltinModel } from "../../embed/models";
import { embedderKey } from "./embedder-key";
import type { Job, JobEvent, ToWorker } from "../job-types";

export interface JobHandlers {
  onEvent(e: JobEvent): void;
}

/** Bytes of document per unit of a worker's capacity. */
const WEIGHT_UNIT = 128 * 1024;
/** The messages that end a job (a cancelled one ends with `stopped`, which the pool alone hears). */
export const ENDINGS: ReadonlySet<string> = new Set(["done", "error", "unchanged", "folder-scanned", "git-synced"]);

/**
 * A job's share of a worker, by document size: 1 per 128 KB in eighths, at least 1/8, so
 * that a worker keeps up to 256 small documents in hand (a job of a few kilobytes
 * takes a fraction of a millisecond; fewer would leave the worker waiting for the next).
 */
export const jobWeight = (bytes: number | null) =>
  bytes === null ? 1 : Math.max(1, Math.ceil((8 * bytes) / WEIGHT_UNIT)) / 8;

/** The worker's embedder a job uses when it batches remote calls; null for the built-in model, which needs no batches. */
export const batchKey = (job: Job): string | null => (isBuiltinModel(job.model) ? null : embedderKey(job));

export interface AssignedJob {
  job: Job;
  weight: number;
  batch: string | null;
  handlers: JobHandlers;
  /** The time cap, from when the job is sent. */
  timer: Timer | undefined;
  /** How long the job may go without progress (see capOf()). */
  capMs: number;
}

export interface Slot {
  /** Started with the first message for it (see post()): a server that ingests nothing starts none. */
  worker: Worker | null;
  jobs: Map<string, AssignedJob>;
  /** Sum of the weights of `jobs`, kept as they come and go: it is read on every scheduling step. */
  load: number;
  /** Assigned jobs per batch key. */
  batches: Map<string, number>;
  /** Jobs cancelled whose worker has not ended them yet (onStopped). */
  stopping: Map<string, Job>;
  /** Set while waiting for a pong: the worker may be stuck in synchronous code. */
  probe: Timer | null;
  /** Messages of this turn not posted yet: they go as one (see post()). */
  outbox: ToWorker[];
}

/** A slot with no worker yet and nothing in hand. */
export function emptySlot(): Slot {
  return { worker: null, jobs: new Map(), load: 0, batches: new Map(), probe: null, outbox: [], stopping: new Map() };
}

/** Drops a job from its slot: its room, its batch share and its time cap. */
export function forgetJob(slot: Slot, jobId: string): void {
  const r = slot.jobs.get(jobId);
  if (!r) return;
  clearTimeout(r.timer);
  slot.load -= r.weight;
  slot.jobs.delete(jobId);
  if (r.batch !== null) {
    const left = slot.batches.get(r.batch)! - 1;
    if (left === 0) slot.batches.delete(r.batch);
    else slot.batches.set(r.batch, left);
  }
}
