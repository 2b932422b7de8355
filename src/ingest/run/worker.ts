/**
 * Worker thread entry. A worker runs several jobs at once (their chunks share
 * embedding batches, see embed/batcher.ts); each job waits for the main thread
 * to confirm its rows are committed before sending more, so rows never pile up.
 */
import type { Embedder } from "../../embed/types";
import { BatchingEmbedder } from "../../embed/batcher";
import { CountingEmbedder } from "../../embed/calls";
import { createEmbedder } from "../../embed/index";
import { isBuiltinModel } from "../../embed/models";
import { embedderKey } from "./embedder-key";
import { runJob } from "./job";
import type { FromWorker, Job, JobEvent, ToWorker } from "../job-types";
import { OcrThread } from "../ocr/client";
import { decodeTurn, type Wire } from "./worker-wire";
import { niceThisThread } from "./thread-priority";

declare const self: Worker;

interface JobInWorker {
  abort: AbortController;
  acks: number;
  wake: (() => void) | null;
}

const running = new Map<string, JobInWorker>();

/**
 * What the jobs say within one turn goes to the main thread as one message (in order),
 * with the buffers it hands over: many small documents run side by side, and a message
 * per event would cost both threads more than the events themselves.
 */
let outbox: FromWorker[] = [];
let transfers: ArrayBuffer[] = [];
function post(e: FromWorker, transfer: ArrayBuffer[] = []): void {
  outbox.push(e);
  for (const b of transfer) transfers.push(b);
  if (outbox.length === 1) setImmediate(flush);
}

function flush(): void {
  if (outbox.length === 0) return;
  const [msgs, bufs] = [outbox, transfers];
  outbox = [];
  transfers = [];
  self.postMessage(msgs, bufs);
}

/**
 * Jobs received and not started yet. They start a few per turn, and what the previous
 * few said is posted first: a job of a small document runs to its end within its turn
 * (the built-in model computes in place), so its rows reach the writer while the next
 * few embed, rather than all of a message's jobs at once at the end.
 */
const waiting = new Map<string, Job>();
const JOBS_PER_TURN = 8;

function pump(): void {
  flush();
  let n = 0;
  for (const [jobId, job] of waiting) {
    if (n++ === JOBS_PER_TURN) break;
    waiting.delete(jobId);
    start(job);
  }
  if (waiting.size > 0) setImmediate(pump);
}

const embedders = new Map<string, Embedder>();
/** Started on the first page to recognise; ended when idle (ocr/client.ts). */
const ocr = new OcrThread();

/** One shared, batching embedder per model and backend settings. */
function embedderFor(job: Job): Embedder {
  const key = embedderKey(job);
  let e = embedders.get(key);
  if (!e) {
    // Each call to the backend is reported to the main thread, which counts it for /metrics.
    const inner = new CountingEmbedder(createEmbedder(job.model, job.embed), (call) => post({ type: "embed", call }));
    e = isBuiltinModel(inner.name) ? inner : new BatchingEmbedder(inner, job.embed.batchSize, job.embed.batchSize * 8);
    embedders.set(key, e);
  }
  return e;
}

// The main thread sends the messages of one turn as one (pool.ts, worker-wire.ts).
self.onmessage = (event: MessageEvent<Wire>) => {
  for (const msg of decodeTurn(event.data)) take(msg);
};

function take(msg: ToWorker): void {
  if (msg.type === "ping") {
    post({ type: "pong" });
    return;
  }
  if (msg.type === "priority") {
    niceThisThread(msg.nice);
    return;
  }
  if (msg.type === "ack") {
    const r = running.get(msg.jobId);
    if (r) {
      r.acks++;
      r.wake?.();
    }
    return;
  }
  if (msg.type === "cancel") {
    // A running job is stopped once its runJob settles (start()); one waiting, or never
    // sent, at once.
    const r = running.get(msg.jobId);
    if (r) r.abort.abort();
    else {
      waiting.delete(msg.jobId);
      post({ type: "stopped", jobId: msg.jobId });
    }
    return;
  }
  waiting.set(msg.job.jobId, msg.job);
  if (waiting.size === 1) setImmediate(pump);
}

function start(job: Job): void {
  const abort = new AbortController();
  const r: JobInWorker = { abort, acks: 0, wake: null };
  running.set(job.jobId, r);
  const emit = (e: JobEvent, transfer?: ArrayBuffer[]) => {
    if (!abort.signal.aborted) post(e, transfer);
  };
  // Resolves once the main thread has acknowledged `n` committed slices of rows.
  const committed = async (n: number) => {
    while (r.acks < n && !abort.signal.aborted) await new Promise<void>((resolve) => (r.wake = resolve));
  };
  void runJob(job, emit, { embedder: embedderFor(job), signal: abort.signal, committed, ocr }).finally(() => {
    running.delete(job.jobId);
    if (abort.signal.aborted) post({ type: "stopped", jobId: job.jobId });
  });
}
