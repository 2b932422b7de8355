/**
 * Re-index safety: a rebuild in which every source fails (the new model was
 * never pulled) is abandoned, and the previous index keeps answering.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { findCollectionById } from "../src/db/repo/collections";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { Client, waitFor } from "./support/ingest";

let t: TestApp;
let c: Client;
let fake: FakeOllama;

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url });
  c = await Client.create(t);
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

test("a re-index to a model Ollama lacks fails every source, is abandoned, and the old index still answers", async () => {
  const pid = await c.pipeline({ name: "abandon" });
  const a = await c.addText(pid, "The lighthouse keeper logs the fog horn schedule every evening.");
  const b = await c.addText(pid, "Quarterly budget reviews happen in the second week of April.");
  for (const s of [a, b]) expect((await c.settled(pid, s.id)).status).toBe("ready");
  const before = (await c.call("GET", `/api/rag/pipelines/${pid}`)).body;
  const key = await c.key(pid);
  const ask = () =>
    t.call("POST", "/api/rag/query", {
      headers: { authorization: `Bearer ${key}` },
      body: { query: "lighthouse fog horn", mode: "vector" },
    });
  expect((await ask()).body.results[0].content).toContain("lighthouse");

  expect((await c.call("PATCH", `/api/rag/pipelines/${pid}`, { embeddingModel: "ollama/never-pulled" })).status).toBe(
    200,
  );
  expect((await c.call("POST", `/api/rag/pipelines/${pid}/reindex`)).status).toBe(202);
  const after = await waitFor("the rebuild to end", async () => {
    const p = (await c.call("GET", `/api/rag/pipelines/${pid}`)).body;
    return p.status !== "processing" ? p : null;
  });

  expect(after.status).toBe("error");
  const col = (await findCollectionById(t.services.db.reader, pid))!;
  expect(col).toMatchObject({ activeGeneration: 1, buildingGeneration: null, indexModel: "builtin-glove" });
  expect(after.chunkCount).toBe(before.chunkCount);
  for (const s of after.dataSources) {
    expect(s.status).toBe("failed");
    expect(s.error).toContain("ollama pull never-pulled");
    expect(s.error).toContain("previous index still answers");
  }
  const q = await ask();
  expect(q.status).toBe(200);
  expect(q.body.results[0].content).toContain("lighthouse");
  expect(
    (await t.services.vectorStore.listTables()).filter((x) => x.collectionId === pid).map((x) => x.generation),
  ).toEqual([1]);
});
