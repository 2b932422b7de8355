/**
 * Gathers embedding requests from concurrent jobs into full batches. Many small
 * documents would otherwise cost one remote call each. Like Nagle's algorithm:
 * while fewer than `maxInFlight` calls are out, what waits goes at once (no added
 * latency when idle); once the backend is busy, texts wait and leave in whole
 * batches of `batchSize` (a request may be split across batches), up to `fill`
 * texts per call, when a call returns.
 */
import type { Embedder } from "./types";

interface Waiting {
  texts: string[];
  /** Next text of this request not yet sent. */
  next: number;
  results: Float32Array[];
  missing: number;
  onDone?: (from: number, count: number) => void;
  resolve: (v: Float32Array[]) => void;
  reject: (e: unknown) => void;
}

/** A run of one request's texts inside an outgoing call. */
interface Piece {
  w: Waiting;
  from: number;
  count: number;
}

export class BatchingEmbedder implements Embedder {
  private queue: Waiting[] = [];
  private queued = 0;
  private inFlight = 0;

  /**
   * @param inner the real embedder (it splits what it gets into its own batches)
   * @param batchSize texts per backend batch; busy calls carry whole multiples of it
   * @param fill the most texts one outgoing call carries (a multiple of batchSize)
   * @param maxInFlight calls out at once before texts start to wait
   */
  constructor(
    private readonly inner: Embedder,
    private readonly batchSize = 32,
    private readonly fill = 256,
    private readonly maxInFlight = 2,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  dimensions(): Promise<number> {
    return this.inner.dimensions();
  }

  embed(
    texts: string[],
    _signal?: AbortSignal,
    onDone?: (from: number, count: number) => void,
  ): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({
        texts,
        next: 0,
        results: new Array(texts.length),
        missing: texts.length,
        onDone,
        resolve,
        reject,
      });
      this.queued += texts.length;
      this.pump();
    });
  }

  private pump(): void {
    for (;;) {
      const idle = this.inFlight < this.maxInFlight;
      const whole = Math.min(this.fill, Math.floor(this.queued / this.batchSize) * this.batchSize);
      // Idle: send whatever waits. Busy: only whole batches, and not too many calls at once.
      const n = idle ? Math.min(this.fill, this.queued) : this.inFlight < this.maxInFlight * 2 ? whole : 0;
      if (n === 0) return;
      this.send(this.take(n));
    }
  }

  /** Takes exactly `n` waiting texts, splitting a request if need be. */
  private take(n: number): Piece[] {
    const pieces: Piece[] = [];
    let left = n;
    while (left > 0) {
      const w = this.queue[0]!;
      const count = Math.min(left, w.texts.length - w.next);
      pieces.push({ w, from: w.next, count });
      w.next += count;
      left -= count;
      if (w.next === w.texts.length) this.queue.shift();
    }
    this.queued -= n;
    return pieces;
  }

  private send(pieces: Piece[]): void {
    this.inFlight++;
    this.inner
      .embed(
        pieces.flatMap((p) => p.w.texts.slice(p.from, p.from + p.count)),
        undefined,
        (from, count) => creditDone(pieces, from, count),
      )
      .then(
        (vectors) => {
          let at = 0;
          for (const p of pieces) {
            for (let i = 0; i < p.count; i++) p.w.results[p.from + i] = vectors[at++]!;
            p.w.missing -= p.count;
            if (p.w.missing === 0) p.w.resolve(p.w.results);
          }
        },
        (err) => {
          for (const p of pieces) this.fail(p.w, err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.pump();
      });
  }

  /** Rejects a request and drops whatever of it still waits. */
  private fail(w: Waiting, err: unknown): void {
    if (w.missing < 0) return;
    w.missing = -1;
    const i = this.queue.indexOf(w);
    if (i >= 0) {
      this.queued -= w.texts.length - w.next;
      this.queue.splice(i, 1);
    }
    w.reject(err);
  }
}

/** Tells each request whose texts lie in [from, from + count) of a call that they are embedded. */
function creditDone(pieces: Piece[], from: number, count: number): void {
  let offset = 0;
  for (const p of pieces) {
    const lo = Math.max(from, offset);
    const hi = Math.min(from + count, offset + p.count);
    if (lo < hi && p.w.missing >= 0) p.w.onDone?.(p.from + lo - offset, hi - lo);
    offset += p.count;
  }
}
