/**
 * Gathers embedding requests from concurrent jobs into full batches. Many small
 * documents would otherwise cost one remote call each. Like Nagle's algorithm:
 * while fewer than `maxInFlight` calls are out, a request goes at once (no added
 * latency when idle); once the backend is busy, requests wait and leave together
 * when a call returns, in batches of up to `fill` texts.
 */
import type { Embedder } from "./types";

interface Waiting {
  texts: string[];
  resolve: (v: Float32Array[]) => void;
  reject: (e: unknown) => void;
}

export class BatchingEmbedder implements Embedder {
  private queue: Waiting[] = [];
  private queued = 0;
  private inFlight = 0;

  /**
   * @param inner the real embedder (it splits what it gets into its own batches)
   * @param fill the most texts one outgoing call carries
   * @param maxInFlight calls out at once before requests start to wait
   */
  constructor(
    private readonly inner: Embedder,
    private readonly fill = 256,
    private readonly maxInFlight = 2,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  dimensions(): Promise<number> {
    return this.inner.dimensions();
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
      this.queued += texts.length;
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.inFlight < this.maxInFlight || this.queued >= this.fill)) {
      if (this.inFlight >= this.maxInFlight * 2) return; // the backend is saturated: keep gathering
      this.send(this.take());
    }
  }

  /** Takes waiting requests up to `fill` texts (at least one request). */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    let n = 0;
    while (this.queue.length > 0 && (batch.length === 0 || n + this.queue[0]!.texts.length <= this.fill)) {
      const w = this.queue.shift()!;
      batch.push(w);
      n += w.texts.length;
    }
    this.queued -= n;
    return batch;
  }

  private send(batch: Waiting[]): void {
    this.inFlight++;
    this.inner
      .embed(batch.flatMap((w) => w.texts))
      .then(
        (vectors) => {
          let at = 0;
          for (const w of batch) {
            w.resolve(vectors.slice(at, at + w.texts.length));
            at += w.texts.length;
          }
        },
        (err) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.inFlight--;
        this.pump();
      });
  }
}
