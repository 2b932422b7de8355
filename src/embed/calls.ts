/**
 * Counting the calls ragd makes to its embedding backends, for /metrics: an Embedder
 * that wraps another and reports each call (backend, success, texts, seconds). Ingestion
 * workers send their reports to the main thread, which adds them to the same series as
 * the query path's.
 */
import { Counter, Histogram } from "../tools/prom";
import { parseModel } from "./models";
import type { Embedder } from "./types";

/** One embed() call to a backend. */
export interface EmbedCall {
  backend: string;
  ok: boolean;
  texts: number;
  seconds: number;
}

/** `builtin`, `ollama` or `openai`: the backend a model name goes to. */
export function backendOf(modelName: string): string {
  const ref = parseModel(modelName, true);
  return "error" in ref ? "unknown" : ref.provider;
}

/** An Embedder that reports every call of the one it wraps. */
export class CountingEmbedder implements Embedder {
  readonly name: string;
  private readonly backend: string;

  constructor(
    private readonly inner: Embedder,
    private readonly report: (call: EmbedCall) => void,
  ) {
    this.name = inner.name;
    this.backend = backendOf(inner.name);
  }

  async embed(texts: string[], signal?: AbortSignal, onDone?: (from: number, count: number) => void) {
    const started = performance.now();
    const done = (ok: boolean) =>
      this.report({ backend: this.backend, ok, texts: texts.length, seconds: (performance.now() - started) / 1000 });
    try {
      const vectors = await this.inner.embed(texts, signal, onDone);
      done(true);
      return vectors;
    } catch (err) {
      done(false);
      throw err;
    }
  }

  dimensions(): Promise<number> {
    return this.inner.dimensions();
  }
}

const CALL_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The embedding series of /metrics. */
export class EmbedMetrics {
  private readonly calls = new Counter("ragd_embedding_calls_total", "Calls to an embedding backend, by backend.");
  private readonly errors = new Counter(
    "ragd_embedding_errors_total",
    "Calls to an embedding backend that failed (after its own retries), by backend.",
  );
  private readonly texts = new Counter("ragd_embedding_texts_total", "Texts sent to an embedding backend, by backend.");
  private readonly seconds = new Histogram(
    "ragd_embedding_call_duration_seconds",
    "Duration of one call to an embedding backend, by backend.",
    CALL_BUCKETS,
  );

  record = (c: EmbedCall): void => {
    const labels = { backend: c.backend };
    this.calls.inc(labels);
    this.errors.inc(labels, c.ok ? 0 : 1); // the series shows 0 from the first call
    this.texts.inc(labels, c.texts);
    this.seconds.observe(labels, c.seconds);
  };

  render(): string[] {
    return [...this.calls.render(), ...this.errors.render(), ...this.texts.render(), ...this.seconds.render()];
  }
}
