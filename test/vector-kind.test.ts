/**
 * The searcher tells the store where a pipeline's vectors come from, which sets the share
 * of IVF_PQ partitions its searches probe (src/vectors/ann-probes.ts): a model embedder's
 * vectors keep their neighbours in few partitions, the built-in embedders' scatter.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { VectorKind } from "../src/vectors/ann-probes";
import type { TableSearch } from "../src/vectors/store";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { Client } from "./support/ingest";

let fake: FakeOllama;
let t: TestApp;
let c: Client;
const seen: { collectionId: string; req: TableSearch }[] = [];

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url, workers: 2 });
  c = await Client.create(t);
  // Watches the searcher's table searches (the real store still answers them).
  const vectorStore = t.services.vectorStore;
  const search = vectorStore.search.bind(vectorStore);
  vectorStore.search = (collectionId, generation, req) => {
    seen.push({ collectionId, req });
    return search(collectionId, generation, req);
  };
}, 30_000);

afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

test.each<[string, VectorKind]>([
  ["ollama/all-minilm", "model"],
  ["builtin", "builtin"],
  ["builtin-glove", "builtin"],
])(
  "a pipeline embedding with %s searches its table as %s vectors",
  async (embeddingModel, kind) => {
    const pipeline = await c.pipeline({ name: embeddingModel, embeddingModel });
    const key = await c.key(pipeline);
    expect((await c.addText(pipeline, "The quarterly ledger of the bakery.", "ledger")).id).toBeTruthy();
    expect((await c.allSettled(pipeline)).every((s) => s.status === "ready")).toBe(true);
    for (const mode of ["vector", "hybrid"]) {
      seen.length = 0;
      const r = await c.query(key, { query: "quarterly ledger", mode });
      expect(r.status).toBe(200);
      expect(seen.length).toBeGreaterThan(0);
      for (const s of seen) expect(s.req.vectorKind).toBe(kind);
    }
  },
  30_000,
);
