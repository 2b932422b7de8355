/**
 * Re-index with "switch only if not worse" (docs/API.md, Evaluation): the new
 * generation is built, the evaluation set runs on both, and the new one switches in
 * only when its nDCG@10 is not lower. A model that answers worse keeps the old index
 * serving (and its generation is dropped); one that answers as well switches.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { findCollectionById } from "../src/db/repo/collections";
import { ReindexGate } from "../src/features/evals/gate";
import { awaitsGate } from "../src/ingest/generations";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { Client, waitFor } from "./support/ingest";

/** Three topics; each text's vector counts its words of each topic (queries use words no document has). */
const TOPICS = [
  ["ocean", "waves", "rocks", "maritime"],
  ["budget", "finance", "quarterly", "cash"],
  ["garden", "flowers", "spring", "botany"],
];
const topicVector = (text: string, shift = 0) => {
  const v = [0.01, 0.01, 0.01];
  for (const w of text.toLowerCase().split(/\W+/)) {
    const i = TOPICS.findIndex((words) => words.includes(w));
    if (i >= 0) v[(i + shift) % 3]! += 1;
  }
  return v;
};
/** Answers worse: a one-word text (a query here) lands on the next topic's axis. */
const worse = (text: string) => topicVector(text, text.trim().includes(" ") ? 0 : 1);

let t: TestApp;
let c: Client;
let fake: FakeOllama;

beforeAll(async () => {
  fake = await startFakeOllama({
    models: { sharp: 3, twin: 3, worse: 3 },
    vectorOf: { sharp: (x) => topicVector(x), twin: (x) => topicVector(x), worse },
  });
  t = await makeApp({ ollamaUrl: fake.url });
  c = await Client.create(t);
}, 30_000);
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

test("ifNotWorse keeps the serving index when the new model answers worse, and switches when it does not", async () => {
  const pid = await c.pipeline({ name: "gate", embeddingModel: "ollama/sharp" });
  const sea = await c.addText(pid, "The ocean waves crash on the rocks.", "sea");
  const money = await c.addText(pid, "The quarterly budget and finance report.", "money");
  const garden = await c.addText(pid, "Garden flowers bloom in spring.", "garden");
  await c.allSettled(pid);
  const set = await c.call("POST", `/api/rag/pipelines/${pid}/evals`, {
    name: "topics",
    queries: [
      { query: "maritime", expectedSourceIds: [sea.id] },
      { query: "cash", expectedSourceIds: [money.id] },
      { query: "botany", expectedSourceIds: [garden.id] },
    ],
  });
  expect(set.status).toBe(201);
  const runs = async () => (await c.call("GET", `/api/rag/pipelines/${pid}/evals/${set.body.id}/runs`)).body;
  const reindexTo = async (model: string) => {
    expect((await c.call("PATCH", `/api/rag/pipelines/${pid}`, { embeddingModel: model })).status).toBe(200);
    const seen = (await runs()).length;
    const r = await c.call("POST", `/api/rag/pipelines/${pid}/reindex`, { switch: "ifNotWorse", evalSet: set.body.id });
    expect(r.status).toBe(202);
    return waitFor("the re-index decision", async () => {
      const all = await runs();
      const col = (await findCollectionById(t.services.db.reader, pid))!;
      return all.length > seen && col.buildingGeneration === null ? all[0] : null;
    });
  };
  const top = async () =>
    (await c.call("POST", `/api/rag/pipelines/${pid}/query`, { query: "maritime", mode: "vector" })).body.results[0]
      .metadata.sourceId;
  expect(await top()).toBe(sea.id);

  const kept = await reindexTo("ollama/worse");
  expect(kept.kind).toBe("reindex");
  expect(kept.result.decision).toBe("kept");
  expect(kept.result.candidate.overall.hybrid.ndcgAt10).toBeLessThan(kept.result.serving.overall.hybrid.ndcgAt10);
  expect(await findCollectionById(t.services.db.reader, pid)).toMatchObject({
    activeGeneration: 1,
    indexModel: "ollama/sharp",
  });
  expect(await top()).toBe(sea.id);
  const tables = async () =>
    (await t.services.vectorStore.listTables()).filter((x) => x.collectionId === pid).map((x) => x.generation);
  expect(await tables()).toEqual([1]);
  for (const s of await c.sources(pid)) expect(s).toMatchObject({ status: "ready", chunkCount: 1 });
  // The reindex.completed event (SSE and webhooks) carries the decision and both figures.
  const ends = t.services.db.reader.$client
    .query("SELECT status, data FROM events WHERE collection_id = ? AND type = 'reindex.completed' ORDER BY id")
    .all(pid) as { status: string; data: string }[];
  expect(ends.map((e) => e.status)).toEqual(["kept"]);
  expect(JSON.parse(ends[0]!.data).evaluation).toMatchObject({ decision: "kept", serving: { ndcgAt10: 1 } });

  const switched = await reindexTo("ollama/twin");
  expect(switched.result.decision).toBe("switched");
  expect(await findCollectionById(t.services.db.reader, pid)).toMatchObject({
    activeGeneration: 2,
    indexModel: "ollama/twin",
  });
  expect(await tables()).toEqual([2]);
  expect(await top()).toBe(sea.id);
}, 60_000);

test("ifNotWorse without a set, or with another pipeline's set, is 400 and starts nothing", async () => {
  const pid = await c.pipeline({ name: "gate-bad", embeddingModel: "ollama/sharp" });
  await c.addText(pid, "The ocean waves crash on the rocks.");
  await c.allSettled(pid);
  for (const body of [{ switch: "ifNotWorse" }, { switch: "ifNotWorse", evalSet: "nope" }, { evalSet: "nope" }]) {
    const r = await c.call("POST", `/api/rag/pipelines/${pid}/reindex`, body);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain("evalSet");
  }
  expect(await findCollectionById(t.services.db.reader, pid)).toMatchObject({
    activeGeneration: 1,
    buildingGeneration: null,
  });
  expect((await c.call("POST", `/api/rag/pipelines/${pid}/reindex`)).status).toBe(202);
});

test("a built re-index whose decision was cut short (a restart) is decided when the gate starts again", async () => {
  const pid = await c.pipeline({ name: "gate-restart", embeddingModel: "ollama/sharp" });
  const sea = await c.addText(pid, "The ocean waves crash on the rocks.");
  await c.addText(pid, "The quarterly budget and finance report.");
  await c.allSettled(pid);
  const set = await c.call("POST", `/api/rag/pipelines/${pid}/evals`, {
    name: "restart",
    queries: [{ query: "maritime", expectedSourceIds: [sea.id] }],
  });
  // Nobody listens for the build: as if the process stopped right after it.
  const listener = t.services.engine.onBuilt;
  t.services.engine.onBuilt = null;
  await c.call("PATCH", `/api/rag/pipelines/${pid}`, { embeddingModel: "ollama/worse" });
  await c.call("POST", `/api/rag/pipelines/${pid}/reindex`, { switch: "ifNotWorse", evalSet: set.body.id });
  const waiting = await waitFor("the build to wait for its gate", async () => {
    const col = (await findCollectionById(t.services.db.reader, pid))!;
    return (await awaitsGate(t.services.db.reader, col)) ? col : null;
  });
  expect(waiting).toMatchObject({ activeGeneration: 1, buildingGeneration: 2, reindexGate: set.body.id });
  expect(listener).not.toBeNull();

  const { db, vectorStore: store, engine, evals, log } = t.services;
  await new ReindexGate({ db, vectorStore: store, engine, evals, log }).start();
  const decided = await waitFor("the decision", async () => {
    const runs = (await c.call("GET", `/api/rag/pipelines/${pid}/evals/${set.body.id}/runs`)).body;
    return runs[0] ?? null;
  });
  expect(decided.result.decision).toBe("kept");
  expect(await findCollectionById(t.services.db.reader, pid)).toMatchObject({
    activeGeneration: 1,
    buildingGeneration: null,
    reindexGate: null,
  });
}, 60_000);
