/**
 * Worker thread entry. A worker runs several jobs at once (their chunks share
 * embedding batches, see embed/batcher.ts); each job waits for the main thread
 * to confirm its rows are committed before sending more, so rows never pile up.
 */
import type { Embedder } from "../embed/types";
import { BatchingEmbedder } from "../embed/batcher";
import { CountingEmbedder } from "../embed/calls";
import { createEmbedder } from "../embed/index";
import { isBuiltinModel } from "../embed/models";
import { embedderKey, runJob, type FromWorker, type Job, type JobEvent, type ToWorker } from "./job";
import { OcrThread } from "./ocr/client";

declare const self: Worker;

interface JobInWorker {
  abort: AbortController;
  acks: number;
  wake: (() => void) | null;
}

const running = new Map<string, JobInWorker>();
const embedders = new Map<string, Embedder>();
/** Started on the first page to recognise; ended when idle (ocr/client.ts). */
const ocr = new OcrThread();

/** One shared, batching embedder per model and backend settings. */
function embedderFor(job: Job): Embedder {
  const key = embedderKey(job);
  let e = embedders.get(key);
  if (!e) {
    // Each call to the backend is reported to the main thread, which counts it for /metrics.
    const inner = new CountingEmbedder(createEmbedder(job.model, job.embed), (call) =>
      self.postMessage({ type: "embed", call } satisfies FromWorker),
    );
    e = isBuiltinModel(inner.name) ? inner : new BatchingEmbedder(inner, job.embed.batchSize, job.embed.batchSize * 8);
    embedders.set(key, e);
  }
  return e;
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  if (msg.type === "ping") return self.postMessage({ type: "pong" });
  if (msg.type === "ack") {
    const r = running.get(msg.jobId);
    if (r) {
      r.acks++;
      r.wake?.();
    }
    return;
  }
  if (msg.type === "cancel") return running.get(msg.jobId)?.abort.abort();
  const job = msg.job;
  const abort = new AbortController();
  const r: JobInWorker = { abort, acks: 0, wake: null };
  running.set(job.jobId, r);
  const emit = (e: JobEvent, transfer?: ArrayBuffer[]) => {
    if (!abort.signal.aborted) self.postMessage(e, transfer ?? []);
  };
  // Resolves once the main thread has acknowledged `n` committed slices of rows.
  const committed = async (n: number) => {
    while (r.acks < n && !abort.signal.aborted) await new Promise<void>((resolve) => (r.wake = resolve));
  };
  void runJob(job, emit, { embedder: embedderFor(job), signal: abort.signal, committed, ocr }).finally(() =>
    running.delete(job.jobId),
  );
};
