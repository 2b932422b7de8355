/**
 * Embeddings from an Ollama server through the official `ollama` client, and
 * RemoteEmbedder: the batching, concurrency, timeout and retry loop that the
 * OpenAI-compatible client shares.
 */
import { Ollama } from "ollama";
import { pause } from "../tools/pause";
import { EmbeddingError, type Embedder } from "./types";

export interface RemoteOptions {
  /** Inputs per request (default 32). */
  batchSize?: number;
  /** Requests in flight at once (default 2). */
  concurrency?: number;
  /** Time allowed for one request, in ms (default 60 000). */
  timeoutMs?: number;
  /** Tries per request, the first included (default 3). */
  attempts?: number;
  /** Delay before the first retry, doubled for each further one, in ms (default 500). */
  backoffMs?: number;
}

const DEFAULTS: Required<RemoteOptions> = {
  batchSize: 32,
  concurrency: 2,
  timeoutMs: 60_000,
  attempts: 3,
  backoffMs: 500,
};

/** An L2-normalised copy; rejects anything that is not a list of numbers. */
function normalise(v: unknown, where: string): Float32Array {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
    throw new EmbeddingError(`${where} returned an embedding that is not a list of numbers`, false);
  }
  const out = Float32Array.from(v as number[]);
  const norm = Math.hypot(...out) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/** Turns an HTTP error status into a message; 429 and 5xx are worth retrying, the rest are not. */
export function statusError(where: string, status: number, message: string): EmbeddingError {
  if (status === 503) return new EmbeddingError(`${where} is busy (503): ${message}`, true);
  if (status === 429 || status >= 500) return new EmbeddingError(`${where} failed (${status}): ${message}`, true);
  return new EmbeddingError(`${where} rejected the request (${status}): ${message}`, false);
}

/** An embedder that calls a server in batches; subclasses send one batch and explain failures. */
export abstract class RemoteEmbedder implements Embedder {
  protected readonly opts: Required<RemoteOptions>;
  private dim: number | null = null;

  constructor(
    readonly name: string,
    /** Who we talk to, for messages: "Ollama at http://…". */
    protected readonly where: string,
    opts: RemoteOptions,
  ) {
    const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
    this.opts = { ...DEFAULTS, ...given };
  }

  /** Sends one batch; resolves to one raw vector per input, in input order. */
  protected abstract send(batch: string[], signal: AbortSignal): Promise<unknown[]>;
  /** Explains an error thrown by `send` that is not already an EmbeddingError. */
  protected abstract explain(err: unknown): EmbeddingError;

  async embed(
    texts: string[],
    signal?: AbortSignal,
    onDone?: (from: number, count: number) => void,
  ): Promise<Float32Array[]> {
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += this.opts.batchSize) batches.push(texts.slice(i, i + this.opts.batchSize));
    const results: Float32Array[][] = [];
    // After the first failure the other calls are aborted, and awaited, so nothing floats.
    const stop = new AbortController();
    const abort = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let next = 0;
    let failure: unknown = null;
    const worker = async () => {
      while (next < batches.length && !abort.aborted) {
        const i = next++;
        try {
          results[i] = await this.sendWithRetries(batches[i]!, abort);
          onDone?.(i * this.opts.batchSize, batches[i]!.length);
        } catch (err) {
          failure ??= err;
          stop.abort();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, batches.length) }, worker));
    if (signal?.aborted) throw new EmbeddingError("embedding was cancelled", true);
    if (failure) throw failure;
    return results.flat();
  }

  async dimensions(): Promise<number> {
    // Remote models do not announce their size cheaply; one short embedding tells.
    if (this.dim === null) await this.embed(["dimension probe"]);
    return this.dim!;
  }

  private async sendWithRetries(batch: string[], abort: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(this.opts.timeoutMs);
      try {
        return this.check(await this.send(batch, AbortSignal.any([abort, timeout])), batch.length);
      } catch (err) {
        if (abort.aborted) throw new EmbeddingError("embedding was cancelled", true);
        const e =
          err instanceof EmbeddingError
            ? err
            : timeout.aborted
              ? new EmbeddingError(`${this.where} did not answer within ${this.opts.timeoutMs} ms`, true)
              : this.explain(err);
        if (!e.transient || attempt >= this.opts.attempts) throw e;
        await pause(this.opts.backoffMs * 2 ** (attempt - 1), abort);
      }
    }
  }

  /** Normalises a batch's vectors and learns, then enforces, the dimension. */
  private check(raw: unknown[], expected: number): Float32Array[] {
    if (raw.length !== expected) {
      throw new EmbeddingError(`${this.where} returned ${raw.length} embeddings for ${expected} inputs`, false);
    }
    const vectors = raw.map((v) => normalise(v, this.where));
    for (const v of vectors) {
      this.dim ??= v.length;
      if (v.length !== this.dim || v.length === 0) {
        throw new EmbeddingError(
          `${this.where} returned ${v.length}-dimensional vectors for ${this.name}, expected ${this.dim}`,
          false,
        );
      }
    }
    return vectors;
  }
}

/**
 * Embeds with an Ollama model via `POST /api/embed`.
 *
 * Inputs beyond the model's context are truncated by Ollama (`truncate: true`). The
 * response does not say which inputs were cut (`prompt_eval_count` is only the total
 * of tokens after truncation), so `truncatedEstimate` counts inputs whose length, at
 * ~4 characters a token, exceeds the context length from `/api/show`. It is a guess:
 * the tokeniser and the runtime `num_ctx` may differ.
 */
export class OllamaEmbedder extends RemoteEmbedder {
  truncatedEstimate = 0;
  private context: Promise<number | null> | null = null;

  constructor(
    private readonly url: string,
    private readonly model: string,
    opts: RemoteOptions & { name?: string } = {},
  ) {
    super(opts.name ?? `ollama/${model}`, `Ollama at ${url}`, opts);
  }

  /** A client whose requests stop when `signal` aborts: the `ollama` client passes no signal for non-streamed calls, and its abort() only reaches streams. */
  private client(signal: AbortSignal): Ollama {
    const fetchWithSignal = (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, signal });
    return new Ollama({ host: this.url, fetch: fetchWithSignal as typeof fetch });
  }

  protected async send(batch: string[], signal: AbortSignal): Promise<unknown[]> {
    const res = await this.client(signal).embed({ model: this.model, input: batch, truncate: true });
    if (!Array.isArray(res?.embeddings)) throw new EmbeddingError(`${this.where} answered without embeddings`, false);
    await this.countTruncated(batch);
    return res.embeddings;
  }

  protected explain(err: unknown): EmbeddingError {
    const status = (err as { status_code?: unknown }).status_code;
    const message = err instanceof Error ? err.message : String(err);
    if (status === 404 && message.includes("not found") && message.includes("model")) {
      return new EmbeddingError(`model "${this.model}" not found: run \`ollama pull ${this.model}\``, false);
    }
    if (status === 404) {
      return new EmbeddingError(
        `${this.where} has no /api/embed (404: ${message}); it needs Ollama 0.3.4 or newer`,
        false,
      );
    }
    if (typeof status === "number") return statusError(this.where, status, message);
    if (err instanceof SyntaxError)
      return new EmbeddingError(`${this.where} did not answer like Ollama: ${message}`, false);
    return new EmbeddingError(`${this.where} is not reachable: ${message}`, true);
  }

  private async countTruncated(batch: string[]): Promise<void> {
    this.context ??= this.client(AbortSignal.timeout(5000))
      .show({ model: this.model })
      .then((r) => Object.entries(r.model_info ?? {}).find(([k]) => k.endsWith(".context_length"))?.[1] ?? null)
      .catch(() => null);
    // Asked once per embedder: a failed /api/show only costs the estimate.
    const tokens = await this.context;
    if (typeof tokens === "number") this.truncatedEstimate += batch.filter((t) => t.length / 4 > tokens).length;
  }
}
