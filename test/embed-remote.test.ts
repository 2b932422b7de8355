/**
 * Remote embedders against the fake Ollama, through the real `ollama` client:
 * batching, concurrency, retries, timeouts, error messages, the OpenAI path and
 * createEmbedder's name forms.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { BuiltinEmbedder } from "../src/embed/builtin";
import { GloveEmbedder } from "../src/embed/builtin-glove";
import { createEmbedder, listOllamaModels } from "../src/embed/index";
import { OllamaEmbedder } from "../src/embed/ollama";
import { OpenAIEmbedder } from "../src/embed/openai";
import { EmbeddingError } from "../src/embed/types";
import { fakeVector, startFakeOllama, type FakeOllama } from "./support/fake-ollama";

let fake: FakeOllama;
beforeEach(async () => {
  fake = await startFakeOllama({ models: { "nomic-embed-text": 768, "all-minilm": 384 } });
});
afterEach(() => fake.stop());

const texts = (n: number) => Array.from({ length: n }, (_, i) => `chunk number ${i}`);
const quick = { backoffMs: 20 };

/** The error `p` rejects with; fails the test when it resolves. */
async function failure(p: Promise<unknown>): Promise<EmbeddingError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmbeddingError);
  return err as EmbeddingError;
}

function expectSameVector(got: Float32Array, want: number[]) {
  expect(got.length).toBe(want.length);
  want.forEach((x, i) => {
    expect(got[i]!).toBeCloseTo(x, 5);
  });
}

describe("fake Ollama", () => {
  test("answers the documented shapes and errors", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${fake.url}${path}`, { method: "POST", body: JSON.stringify(body) }).then(
        async (r) => [r.status, await r.json()] as const,
      );
    const [, one] = await post("/api/embed", { model: "all-minilm", input: "hi" });
    expect(one.embeddings).toHaveLength(1);
    expect(one.embeddings[0]).toHaveLength(384);
    expect(typeof one.prompt_eval_count).toBe("number");
    expect(await post("/api/embed", { model: "x", input: ["a"] })).toEqual([
      404,
      { error: 'model "x" not found, try pulling it first' },
    ]);
    expect((await post("/api/embed", { model: "all-minilm", input: 3 }))[0]).toBe(400);
    expect((await post("/api/embeddings", { model: "all-minilm", prompt: "hi" }))[1].embedding).toEqual(
      one.embeddings[0],
    );
    const tags = await fetch(`${fake.url}/api/tags`).then((r) => r.json());
    expect(tags.models.map((m: { name: string }) => m.name)).toEqual(["nomic-embed-text:latest", "all-minilm:latest"]);
    expect((await fetch(`${fake.url}/api/version`).then((r) => r.json())).version).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await post("/api/show", { model: "all-minilm" }))[1].model_info["bert.embedding_length"]).toBe(384);
  });

  test("refuses over-long input when truncate is false, cuts it otherwise", async () => {
    await fake.set({ contextLength: { "all-minilm": 4 } });
    const body = (truncate?: boolean) => JSON.stringify({ model: "all-minilm", input: "x".repeat(100), truncate });
    expect((await fetch(`${fake.url}/api/embed`, { method: "POST", body: body(false) })).status).toBe(400);
    expect((await fetch(`${fake.url}/api/embed`, { method: "POST", body: body() })).status).toBe(200);
    expect(fake.stats().truncated).toBe(1);
  });
});

describe("OllamaEmbedder", () => {
  test("sends 100 inputs as 4 batches of at most 32 and keeps their order", async () => {
    const input = texts(100);
    const vectors = await new OllamaEmbedder(fake.url, "all-minilm").embed(input);
    expect(fake.stats().calls).toBe(4);
    expect(fake.stats().inputs).toBe(100);
    input.forEach((t, i) => {
      expectSameVector(vectors[i]!, fakeVector("all-minilm", t, 384));
    });
  });

  test("keeps at most `concurrency` calls in flight", async () => {
    await fake.set({ latencyMs: 40 });
    await new OllamaEmbedder(fake.url, "all-minilm", { batchSize: 5, concurrency: 3 }).embed(texts(60));
    expect(fake.stats().calls).toBe(12);
    expect(fake.stats().maxConcurrent).toBe(3);
    expect(fake.stats().busyMs).toBeGreaterThanOrEqual(12 * 35);
  });

  test("retries a 503 and then succeeds", async () => {
    fake.failNext(2, 503);
    const vectors = await new OllamaEmbedder(fake.url, "all-minilm", quick).embed(["a", "b"]);
    expect(vectors).toHaveLength(2);
    expect(fake.stats().calls).toBe(3);
  });

  test("stays busy after its attempts: transient, with Ollama's message", async () => {
    await fake.set({ mode: "busy503" });
    const err = await failure(new OllamaEmbedder(fake.url, "all-minilm", quick).embed(["a"]));
    expect(err.message).toContain("server busy, please try again");
    expect(err.transient).toBe(true);
    expect(fake.stats().calls).toBe(3);
  });

  test("a missing model says how to pull it, without retrying", async () => {
    const err = await failure(new OllamaEmbedder(fake.url, "mxbai-embed-large", quick).embed(["a"]));
    expect(err.message).toBe('model "mxbai-embed-large" not found: run `ollama pull mxbai-embed-large`');
    expect(err.transient).toBe(false);
    expect(fake.stats().calls).toBe(1);
  });

  test("a server without /api/embed is told apart from a missing model", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("404 page not found", { status: 404 }),
    });
    try {
      const err = await failure(new OllamaEmbedder(`http://127.0.0.1:${server.port}`, "all-minilm").embed(["a"]));
      expect(err.message).toContain("has no /api/embed (404: 404 page not found)");
      expect(err.transient).toBe(false);
    } finally {
      await server.stop(true);
    }
  });

  test("a stopped server is reported as not reachable within a few seconds, and found again on up()", async () => {
    await fake.down();
    const started = performance.now();
    const embedder = new OllamaEmbedder(fake.url, "all-minilm"); // default attempts and backoff
    const err = await failure(embedder.embed(["a"]));
    expect(performance.now() - started).toBeLessThan(3000);
    expect(err.message).toStartWith(`Ollama at ${fake.url} is not reachable`);
    expect(err.transient).toBe(true);
    fake.up();
    expect(await embedder.embed(["a"])).toHaveLength(1);
  });

  test("a 500 is retried, then fails with the last reason", async () => {
    await fake.set({ mode: "error500" });
    const err = await failure(new OllamaEmbedder(fake.url, "all-minilm", { ...quick, attempts: 4 }).embed(["a"]));
    expect(fake.stats().calls).toBe(4);
    expect(err.message).toBe(`Ollama at ${fake.url} failed (500): llama runner process has terminated: signal: killed`);
  });

  test("gives up on a call slower than timeoutMs", async () => {
    await fake.set({ latencyMs: 1000 });
    const started = performance.now();
    const err = await failure(
      new OllamaEmbedder(fake.url, "all-minilm", { timeoutMs: 100, attempts: 2, ...quick }).embed(["a"]),
    );
    expect(performance.now() - started).toBeLessThan(600);
    expect(err.message).toBe(`Ollama at ${fake.url} did not answer within 100 ms`);
    expect(err.transient).toBe(true);
  });

  test("stops when the caller aborts", async () => {
    await fake.set({ latencyMs: 1000 });
    const started = performance.now();
    const err = await failure(new OllamaEmbedder(fake.url, "all-minilm").embed(texts(10), AbortSignal.timeout(50)));
    expect(performance.now() - started).toBeLessThan(500);
    expect(err.message).toBe("embedding was cancelled");
  });

  test("learns the dimension from the server and returns unit vectors", async () => {
    const nomic = new OllamaEmbedder(fake.url, "nomic-embed-text");
    expect(await nomic.dimensions()).toBe(768);
    const minilm = new OllamaEmbedder(fake.url, "all-minilm");
    const [v] = await minilm.embed(["hello"]);
    expect(await minilm.dimensions()).toBe(384);
    expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
    expect(fake.stats().calls).toBe(2); // the second dimensions() asked nobody
  });

  test("estimates how many inputs Ollama truncated", async () => {
    await fake.set({ contextLength: { "all-minilm": 10 } });
    const embedder = new OllamaEmbedder(fake.url, "all-minilm");
    await embedder.embed(["x".repeat(40), "y".repeat(200), "z".repeat(41)]); // 10, 50 and 11 fake tokens
    expect(embedder.truncatedEstimate).toBe(2);
    expect(fake.stats().truncated).toBe(2);
  });
});

describe("OpenAIEmbedder", () => {
  test("sends the key and orders results by index", async () => {
    await fake.set({ apiKey: "sk-test", reverseOpenAI: true });
    const input = texts(5);
    const vectors = await new OpenAIEmbedder(fake.url, "sk-test", "all-minilm", { batchSize: 2 }).embed(input);
    expect(fake.stats().calls).toBe(3);
    input.forEach((t, i) => {
      expectSameVector(vectors[i]!, fakeVector("all-minilm", t, 384));
    });
  });

  test("a refused key is not retried and names the setting", async () => {
    await fake.set({ apiKey: "sk-test" });
    for (const key of ["wrong", null]) {
      const err = await failure(new OpenAIEmbedder(fake.url, key, "all-minilm", quick).embed(["a"]));
      expect(err.message).toContain("refused the API key (401): Incorrect API key provided; check RAGD_OPENAI_KEY");
      expect(err.transient).toBe(false);
    }
  });

  test("normalises what the server did not, and refuses a short answer", async () => {
    let data = [{ index: 0, embedding: [3, 4] }];
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ data }) });
    try {
      const embedder = new OpenAIEmbedder(`http://127.0.0.1:${server.port}`, null, "m");
      expect([...(await embedder.embed(["a"]))[0]!]).toEqual([Math.fround(0.6), Math.fround(0.8)]);
      data = [];
      expect((await failure(embedder.embed(["a"]))).message).toContain("returned 0 embeddings for 1 inputs");
    } finally {
      await server.stop(true);
    }
  });

  test("retries 503, reports unknown models and unreachable servers", async () => {
    fake.failNext(1, 503);
    expect(await new OpenAIEmbedder(fake.url, null, "all-minilm", quick).embed(["a"])).toHaveLength(1);
    const missing = await failure(new OpenAIEmbedder(fake.url, null, "nope", quick).embed(["a"]));
    expect(missing.message).toStartWith(`model "nope" not found at ${fake.url} (404)`);
    await fake.down();
    const down = await failure(new OpenAIEmbedder(fake.url, null, "all-minilm", quick).embed(["a"]));
    expect(down.message).toStartWith(`OpenAI-compatible server at ${fake.url} is not reachable`);
  });
});

describe("createEmbedder", () => {
  const cfg = () => ({ ollamaUrl: fake.url, openaiUrl: fake.url, openaiKey: null, batchSize: 8 });

  test.each([
    ["builtin", BuiltinEmbedder],
    ["builtin-glove", GloveEmbedder],
    ["ollama/all-minilm", OllamaEmbedder],
    ["all-minilm", OllamaEmbedder],
    ["openai/all-minilm", OpenAIEmbedder],
  ] as const)("%s", async (name, kind) => {
    const embedder = createEmbedder(name, cfg());
    expect(embedder).toBeInstanceOf(kind);
    expect(embedder.name).toBe(name);
    const vectors = await embedder.embed(texts(10));
    expect(vectors).toHaveLength(10);
    if (kind !== BuiltinEmbedder && kind !== GloveEmbedder) expect(fake.stats().calls).toBe(2); // batchSize reached the client
  });

  test.each([
    ["Not A Model!", { openaiUrl: "http://127.0.0.1:1" }, "is not a model ragd knows"],
    ["openai/text-embedding-3-small", { openaiUrl: null }, "need RAGD_OPENAI_URL"],
  ] as const)("refuses %s", (name, override, reason) => {
    expect(() => createEmbedder(name, { ...cfg(), ...override })).toThrow(reason);
    expect(() => createEmbedder(name, { ...cfg(), ...override })).toThrow(EmbeddingError);
  });
});

test("listOllamaModels lists pulled models, and [] when Ollama is down", async () => {
  expect(await listOllamaModels(fake.url)).toEqual(["nomic-embed-text:latest", "all-minilm:latest"]);
  await fake.down();
  expect(await listOllamaModels(fake.url)).toEqual([]);
});
