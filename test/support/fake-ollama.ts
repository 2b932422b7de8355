/**
 * An Ollama-compatible server for tests, since Ollama itself cannot run here.
 * It answers /api/embed, /api/embeddings, /api/tags, /api/version, /api/show and
 * Ollama's OpenAI-compatible /v1/embeddings with the documented shapes and error
 * bodies. Vectors are seeded from model + text, so a text always gets the same
 * unit vector. The fake tokeniser counts 4 characters as one token.
 *
 * @example
 *   const ollama = await startFakeOllama({ models: { "all-minilm": 384 } });
 *   ollama.failNext(1, 503);
 *   await ollama.set({ latencyMs: 50 });
 *   ollama.stats().maxConcurrent;
 *   await ollama.stop();
 */
import type { Server } from "bun";

export type FakeMode = "ok" | "busy503" | "error500" | "down";

export interface FakeOllamaSettings {
  /** Model name → embedding dimension. */
  models: Record<string, number>;
  /** Model name → context length in fake tokens; longer input fails unless truncate is on. */
  contextLength: Record<string, number>;
  /**
   * Delay inside each embedding call, counted as busy time. Lowering it ends the waits of
   * calls already in flight at the new delay (a slow Ollama that recovers); raising it
   * delays only the calls that come after.
   */
  latencyMs: number;
  /** Delay before /api/tags answers (the model list a dashboard reads). */
  listLatencyMs: number;
  mode: Exclude<FakeMode, "down">;
  /** When set, /v1/embeddings demands `Authorization: Bearer <key>`. */
  apiKey: string | null;
  /** Return /v1/embeddings data in reverse order, to test that clients sort by index. */
  reverseOpenAI: boolean;
  /** Model name → its own embedding of a text instead of fakeVector's (e.g. one model that answers worse). */
  vectorOf: Record<string, (text: string) => number[]>;
}

export interface FakeOllamaStats {
  /** Embedding requests received, failed ones included. */
  calls: number;
  /** Inputs embedded successfully. */
  inputs: number;
  /** Inputs cut to the context length. */
  truncated: number;
  /** Total time spent inside embedding handlers, in ms. */
  busyMs: number;
  maxConcurrent: number;
}

export interface FakeOllama {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Stops listening; connections are refused until up(). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  /** Changes settings; `mode: "down"` is down(), any other mode brings the server up. */
  set(patch: Partial<Omit<FakeOllamaSettings, "mode">> & { mode?: FakeMode }): Promise<void>;
  /** The next `n` embedding calls fail with `status` (400, 404, 500 or 503). */
  failNext(n: number, status: number): void;
  stats(): FakeOllamaStats;
}

const BUSY = "server busy, please try again.  maximum pending requests exceeded";
const CRASHED = "llama runner process has terminated: signal: killed";
const CHARS_PER_TOKEN = 4;

const json = (body: unknown, status = 200) => Response.json(body, { status });
const fail = (status: number, error: string) => json({ error }, status);
const notFound = (model: string) => fail(404, `model "${model}" not found, try pulling it first`);
const tokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);
const withTag = (name: string) => (name.includes(":") ? name : `${name}:latest`);
const unit = (v: number[]) => {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
};

/** A deterministic unit vector for `text` (FNV-1a seed, then mulberry32). */
export function fakeVector(model: string, text: string, dim: number): number[] {
  let seed = 0x811c9dc5;
  for (const ch of `${model}\u0000${text}`) seed = Math.imul(seed ^ ch.codePointAt(0)!, 0x01000193);
  const v: number[] = [];
  for (let i = 0; i < dim; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    v.push(((t ^ (t >>> 14)) >>> 0) / 2 ** 32 - 0.5);
  }
  return unit(v);
}

type Embedded = { model: string; vectors: number[][]; count: number };

class FakeOllamaServer {
  stats: FakeOllamaStats = { calls: 0, inputs: 0, truncated: 0, busyMs: 0, maxConcurrent: 0 };
  failures: number[] = [];
  private inFlight = 0;
  /** Settles when the settings change, so calls waiting out a latency look at it again. */
  private changed = Promise.withResolvers<void>();

  constructor(readonly s: FakeOllamaSettings) {}

  route = async (req: Request): Promise<Response> => {
    const key = `${req.method} ${new URL(req.url).pathname}`;
    if (key === "POST /api/embed") return this.timed(req, (b) => this.apiEmbed(b));
    if (key === "POST /api/embeddings") return this.timed(req, (b) => this.legacyEmbeddings(b));
    if (key === "POST /v1/embeddings") return this.timed(req, (b) => this.openaiEmbeddings(req, b));
    if (key === "GET /api/tags") {
      if (this.s.listLatencyMs > 0) await Bun.sleep(this.s.listLatencyMs);
      return json({ models: Object.entries(this.s.models).map(([n, d]) => entry(n, d)) });
    }
    if (key === "GET /api/version") return json({ version: "0.12.6" });
    if (key === "POST /api/show") return this.show(await req.json().catch(() => null));
    return new Response("404 page not found", { status: 404 });
  };

  private dimOf(model: string): number | undefined {
    return Object.entries(this.s.models).find(([name]) => withTag(name) === withTag(model))?.[1];
  }

  /** The settings changed (set()). */
  settingsChanged(): void {
    this.changed.resolve();
    this.changed = Promise.withResolvers<void>();
  }

  /** Waits out the latency set when the call came, or a lower one set since. */
  private async delay(): Promise<void> {
    const started = performance.now();
    let latency = this.s.latencyMs;
    if (latency <= 0) return Bun.sleep(0); // a turn of the event loop, as any call takes
    for (;;) {
      latency = Math.min(latency, this.s.latencyMs);
      const left = latency - (performance.now() - started);
      if (left <= 0) return;
      await Promise.race([Bun.sleep(left), this.changed.promise]);
    }
  }

  /** Counts concurrency and busy time around an embedding handler. */
  private async timed(req: Request, reply: (body: any) => Promise<Response>): Promise<Response> {
    const started = performance.now();
    this.stats.maxConcurrent = Math.max(this.stats.maxConcurrent, ++this.inFlight);
    try {
      const body = await req.json().catch(() => null);
      return body === null ? fail(400, "invalid character in request body") : await reply(body);
    } finally {
      this.inFlight--;
      this.stats.busyMs += performance.now() - started;
    }
  }

  /** The injected failure or the mode's error for this call, if any. */
  private injected(model: string): Response | null {
    const mode = this.s.mode === "busy503" ? 503 : this.s.mode === "error500" ? 500 : 0;
    const status = this.failures.shift() ?? mode;
    if (status === 503) return fail(503, BUSY);
    if (status === 500) return fail(500, CRASHED);
    if (status === 404) return notFound(model);
    return status ? fail(status, "invalid input type") : null;
  }

  /** The work shared by every embedding route: validation, failures, truncation, vectors. */
  private async embed(body: any): Promise<Response | Embedded> {
    this.stats.calls++;
    await this.delay();
    if (typeof body.model !== "string" || !body.model) return fail(400, "model is required");
    const input: unknown = typeof body.input === "string" ? [body.input] : body.input;
    if (!Array.isArray(input) || input.some((x) => typeof x !== "string")) return fail(400, "invalid input type");
    const dim = this.dimOf(body.model);
    const failure = this.injected(body.model) ?? (dim === undefined ? notFound(body.model) : null);
    if (failure) return failure;
    const ctx = this.s.contextLength[body.model] ?? Infinity;
    const tooLong = input.filter((t) => tokens(t) > ctx).length;
    if (tooLong && body.truncate === false) return fail(400, "the input length exceeds the context length");
    const size = body.dimensions ?? dim;
    if (!Number.isInteger(size) || size < 1 || size > dim!) return fail(400, "invalid dimensions");
    const kept = input.map((t: string) => t.slice(0, ctx * CHARS_PER_TOKEN));
    const own = Object.entries(this.s.vectorOf).find(([name]) => withTag(name) === withTag(body.model))?.[1];
    const vectors = kept.map((t) => unit((own ? own(t) : fakeVector(body.model, t, dim!)).slice(0, size)));
    this.stats.truncated += tooLong;
    this.stats.inputs += input.length;
    return { model: body.model, vectors, count: kept.reduce((n, t) => n + tokens(t), 0) };
  }

  private async apiEmbed(body: any): Promise<Response> {
    const started = performance.now();
    const r = await this.embed(body);
    if (r instanceof Response) return r;
    const total_duration = Math.round((performance.now() - started) * 1e6); // Ollama reports nanoseconds
    return json({
      model: r.model,
      embeddings: r.vectors,
      total_duration,
      load_duration: 0,
      prompt_eval_count: r.count,
    });
  }

  private async legacyEmbeddings(body: any): Promise<Response> {
    const r = await this.embed({ model: body.model, input: body.prompt ?? "" });
    return r instanceof Response ? r : json({ embedding: r.vectors[0] });
  }

  private async openaiEmbeddings(req: Request, body: any): Promise<Response> {
    if (this.s.apiKey && req.headers.get("authorization") !== `Bearer ${this.s.apiKey}`) {
      return json(
        { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } },
        401,
      );
    }
    const r = await this.embed(body);
    if (r instanceof Response) {
      const { error } = (await r.json()) as { error: string };
      return json({ error: { message: error, type: "api_error", param: null, code: null } }, r.status);
    }
    const data = r.vectors.map((embedding, index) => ({ object: "embedding", embedding, index }));
    if (this.s.reverseOpenAI) data.reverse();
    return json({ object: "list", data, model: r.model, usage: { prompt_tokens: r.count, total_tokens: r.count } });
  }

  private show(body: any): Response {
    const dim = typeof body?.model === "string" ? this.dimOf(body.model) : undefined;
    if (dim === undefined) return fail(404, `model '${body?.model}' not found`);
    const ctx = this.s.contextLength[body.model] ?? 2048;
    const model_info = { "general.architecture": "bert", "bert.context_length": ctx, "bert.embedding_length": dim };
    return json({
      modelfile: "",
      parameters: "",
      template: "",
      details: entry(body.model, dim).details,
      model_info,
      capabilities: ["embedding"],
    });
  }
}

/** A model as /api/tags lists it. */
function entry(name: string, dim: number) {
  const details = {
    parent_model: "",
    format: "gguf",
    family: "bert",
    families: ["bert"],
    parameter_size: "137M",
    quantization_level: "F16",
  };
  return {
    name: withTag(name),
    model: withTag(name),
    modified_at: new Date(0).toISOString(),
    size: dim * 1000,
    digest: "0".repeat(64),
    details,
  };
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startFakeOllama(opts: Partial<FakeOllamaSettings> = {}): Promise<FakeOllama> {
  const defaults = {
    models: { "nomic-embed-text": 768, "all-minilm": 384 },
    contextLength: {},
    latencyMs: 0,
    listLatencyMs: 0,
    vectorOf: {},
  };
  const fake = new FakeOllamaServer({ ...defaults, mode: "ok", apiKey: null, reverseOpenAI: false, ...opts });
  const listen = (port: number) => Bun.serve({ hostname: "127.0.0.1", port, fetch: fake.route });
  let server: Server<undefined> | null = listen(0);
  const port = server.port!;
  const down = async () => {
    await server?.stop(true);
    server = null;
  };
  const up = () => void (server ??= listen(port));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: down,
    down,
    up,
    async set({ mode, ...patch }) {
      Object.assign(fake.s, patch);
      fake.settingsChanged();
      if (mode === "down") return down();
      if (mode) {
        fake.s.mode = mode;
        up();
      }
    },
    failNext: (n, status) => fake.failures.push(...Array<number>(n).fill(status)),
    stats: () => ({ ...fake.stats }),
  };
}
