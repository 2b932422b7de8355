/**
 * builtin-glove through the HTTP API (docs/API.md, The built-in models): a pipeline
 * created without a model gets it, indexes 484-dimension vectors and finds a text by
 * meaning without a shared word; a builtin pipeline beside it keeps 384 dimensions.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

const DOCS = [
  "Myocardial infarction occurs when blood flow to part of the cardiac muscle stops.",
  "The municipal library opens at nine on weekdays and at ten on Saturdays.",
  "Sourdough bread rises slowly because wild yeast ferments the dough overnight.",
];

let t: TestApp;
let c: Client;
beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** A pipeline of DOCS with `body`'s settings, its key, once every source is ready. */
async function filled(body: Record<string, unknown>) {
  const id = await c.pipeline(body);
  for (const [i, d] of DOCS.entries()) await c.addText(id, d, `doc-${i}`);
  for (const s of await c.allSettled(id)) expect(s.status).toBe("ready");
  return { id, key: await c.key(id) };
}

const top = async (key: string, query: string) =>
  (await c.query(key, { query, mode: "vector", topK: 3 })).body.results[0].content as string;

test("a pipeline created without a model uses builtin-glove and finds meaning without shared words", async () => {
  const { id, key } = await filled({ name: "Default model" });
  const p = await c.getPipeline(id);
  expect(p.embeddingModel).toBe("builtin-glove");
  expect(p.embeddingDimensions).toBe(484);
  expect(await top(key, "heart attack")).toContain("Myocardial infarction");
});

test("a builtin pipeline keeps the hashed 384-dimension embedder", async () => {
  const { id } = await filled({ name: "Old model", embeddingModel: "builtin" });
  const p = await c.getPipeline(id);
  expect(p.embeddingModel).toBe("builtin");
  expect(p.embeddingDimensions).toBe(384);
});
