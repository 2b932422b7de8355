/**
 * The OCR thread as an ingestion worker uses it: pages are recognised one at a time
 * (recognition is CPU-bound; the worker's other jobs keep running meanwhile), each
 * within a time bound. A page past its bound, or a cancelled job, terminates the thread
 * (the only way to stop synchronous WebAssembly); the next page starts a fresh one.
 * An idle thread is ended too, which gives its memory back.
 */
import { ExtractionError } from "../extract/errors";
import type { OcrReply, OcrRequest } from "./thread";

/** Where the thread's code is: beside this file from source, the third entry point inside the binary. */
function threadEntry(): string {
  return import.meta.url.includes("$bunfs") ? "./ingest/ocr/thread.ts" : new URL("./thread.ts", import.meta.url).href;
}

/** An idle OCR thread is ended after this long, to give back its memory (tens of MB). */
const IDLE_MS = 20_000;

export type OcrJob = Omit<OcrRequest, "id">;

export class OcrThread {
  private worker: Worker | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private idle: Timer | null = null;

  /** Recognises one image after those before it; `label` names it in errors ("page 3"). */
  run(job: OcrJob, label: string, timeoutMs: number, signal: AbortSignal): Promise<string> {
    const turn = this.queue.then(() => this.once(job, label, timeoutMs, signal));
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** Ends the thread now (its memory goes with it). */
  stop(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.worker?.terminate();
    this.worker = null;
  }

  private once(job: OcrJob, label: string, timeoutMs: number, signal: AbortSignal): Promise<string> {
    if (signal.aborted) return Promise.reject(new ExtractionError("cancelled"));
    if (this.idle) clearTimeout(this.idle);
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const end = (fail: Error | null, text = "") => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        worker.onmessage = null;
        worker.onerror = null;
        if (fail) reject(fail);
        else resolve(text);
      };
      const timer = setTimeout(() => {
        this.stop();
        end(
          new ExtractionError(
            `OCR of ${label} took longer than ${timeoutMs} ms and was stopped (RAGD_OCR_PAGE_TIMEOUT_MS)`,
          ),
        );
      }, timeoutMs);
      const onAbort = () => {
        this.stop();
        end(new ExtractionError("cancelled"));
      };
      signal.addEventListener("abort", onAbort);
      worker.onmessage = (ev: MessageEvent<OcrReply>) => {
        if (ev.data.id !== id) return;
        this.armIdle();
        if ("text" in ev.data) return end(null, ev.data.text);
        end(
          ev.data.known
            ? new ExtractionError(`OCR of ${label}: ${ev.data.error}`)
            : new Error(`OCR of ${label} failed: ${ev.data.error}`),
        );
      };
      worker.onerror = (ev) => {
        this.stop();
        end(new Error(`the OCR thread crashed on ${label}: ${ev.message}`));
      };
      worker.postMessage({ id, ...job } satisfies OcrRequest, [job.image.buffer as ArrayBuffer]);
    });
  }

  private spawn(): Worker {
    const worker = new Worker(threadEntry(), { smol: true });
    // The thread must not keep its owner alive; pending pages hold their own timers.
    (worker as Worker & { unref(): void }).unref();
    return worker;
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(), IDLE_MS);
    // An idle thread must not keep its owner alive.
    (this.idle as { unref?: () => void }).unref?.();
  }
}
