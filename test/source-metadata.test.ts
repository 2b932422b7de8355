/**
 * Metadata and external ids through the session API: create, GET one, PATCH
 * without re-embedding (the fake Ollama counts embedding calls), a duplicate
 * externalId, bad metadata; the filter applied before ranking (topK among few and
 * among many matches); and a table written before the metadata column existed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { closeServices } from "../src/services";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { chunkRows, Client, openLanceDir, tablesOf, waitFor } from "./support/ingest";

const MODES = ["vector", "keyword", "hybrid"] as const;

let fake: FakeOllama;
let t: TestApp;
let c: Client;

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url, workers: 2, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
});

afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

const sourcesPath = (p: string) => `/api/rag/pipelines/${p}/sources`;

describe("create, GET one, PATCH", () => {
  let pipeline: string;
  let key: string;
  beforeAll(async () => {
    pipeline = await c.pipeline({ name: "Meta", embeddingModel: "ollama/all-minilm", chunkSize: 120, chunkOverlap: 0 });
    key = await c.key(pipeline);
  });

  test("PATCH metadata: queries see it, chunk count unchanged, nothing embedded", async () => {
    const text = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the staff handbook about annual leave.`).join(
      " ",
    );
    const r = await c.addSource(pipeline, { type: "text", name: "Handbook", content: text, metadata: { team: "hr" } });
    expect(r.status).toBe(201);
    expect(r.body.metadata).toEqual({ team: "hr" });
    expect(r.body.externalId).toBeNull();
    const ready = await c.settled(pipeline, r.body.id);
    expect(ready.chunkCount).toBeGreaterThan(1);
    const calls = fake.stats().calls;

    const p = await c.call("PATCH", `${sourcesPath(pipeline)}/${r.body.id}`, {
      name: "Handbook 2026",
      metadata: { team: "eng", year: 2026 },
    });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({
      name: "Handbook 2026",
      metadata: { team: "eng", year: 2026 },
      chunkCount: ready.chunkCount,
    });

    const ask = (metadata: unknown) =>
      c.query(key, { query: "annual leave handbook", mode: "keyword", topK: 50, filter: { metadata } });
    const now = await ask({ team: "eng", year: 2026 });
    expect(now.status).toBe(200);
    expect(now.body.results.length).toBe(ready.chunkCount);
    expect(now.body.results[0].metadata).toMatchObject({ team: "eng", year: 2026, sourceName: "Handbook 2026" });
    expect((await ask({ team: "hr" })).body.results).toEqual([]);
    expect(fake.stats().calls).toBe(calls);
    const [table] = await tablesOf(t.dataDir, pipeline);
    const rows = await chunkRows(t.dataDir, pipeline, Number(table!.split("_g")[1]));
    expect(rows.filter((row) => row.document_id === r.body.id).length).toBe(ready.chunkCount);
    expect((await c.source(pipeline, r.body.id))?.status).toBe("ready");
  }, 30_000);

  test("PATCH while the source is being ingested: every chunk ends with the new metadata", async () => {
    const builtin = await c.pipeline({ name: "Racing", chunkSize: 100, chunkOverlap: 0 });
    const k = await c.key(builtin);
    const text = Array.from({ length: 3000 }, (_, i) => `Line ${i} of the long ledger.`).join(" ");
    const r = await c.addSource(builtin, { type: "text", content: text, metadata: { v: "old" } });
    const p = await c.call("PATCH", `${sourcesPath(builtin)}/${r.body.id}`, { metadata: { v: "new" } });
    expect(p.status).toBe(200);
    const ready = await c.settled(builtin, r.body.id, 60_000);
    expect(ready.status).toBe("ready");
    expect(ready.chunkCount).toBeGreaterThan(100);
    const count = async (v: unknown) =>
      (await c.query(k, { query: "ledger", mode: "keyword", topK: 100, filter: { metadata: { v } } })).body.results
        .length;
    expect(await count("old")).toBe(0);
    expect(await count({ $ne: "new" })).toBe(0); // no chunk without the new value
    expect(await count("new")).toBe(100);
  }, 90_000);

  test("GET one source, 404 for another id", async () => {
    const r = await c.addSource(pipeline, { type: "text", content: "A note on parking.", externalId: "wiki/4711" });
    const one = await c.call("GET", `${sourcesPath(pipeline)}/${r.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: r.body.id, externalId: "wiki/4711", metadata: {} });
    expect((await c.call("GET", `${sourcesPath(pipeline)}/019a0000-0000-7000-8000-000000000000`)).status).toBe(404);
  });

  test("a duplicate externalId is 409 naming it", async () => {
    expect((await c.addSource(pipeline, { type: "text", content: "one", externalId: "dup-1" })).status).toBe(201);
    const again = await c.addSource(pipeline, { type: "text", content: "two", externalId: "dup-1" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    expect(again.body.error.message).toContain('"dup-1"');
    // Another pipeline may use it.
    const other = await c.pipeline({ name: "Other" });
    expect((await c.addSource(other, { type: "text", content: "three", externalId: "dup-1" })).status).toBe(201);
  });

  test.each([
    ["create: reserved key", "POST", { metadata: { sourceId: "x" } }, "metadata.sourceId"],
    ["create: nested object", "POST", { metadata: { a: { b: 1 } } }, "metadata.a"],
    ["create: array of numbers", "POST", { metadata: { a: [1, 2] } }, "metadata.a"],
    ["create: bad key", "POST", { metadata: { "1x": "a" } }, "metadata.1x"],
    ["create: empty externalId", "POST", { externalId: "  " }, "externalId"],
    ["create: control character in externalId", "POST", { externalId: "a\nb" }, "externalId"],
    ["patch: metadata not an object", "PATCH", { metadata: ["a"] }, "metadata"],
    ["patch: too long a value", "PATCH", { metadata: { a: "x".repeat(2001) } }, "metadata.a"],
    ["patch: unknown field", "PATCH", { externalId: "new" }, "externalId"],
  ])("%s is 400 naming the field", async (_label, method, body, field) => {
    const s = await c.addText(pipeline, "Some text to label.");
    const r =
      method === "POST"
        ? await c.addSource(pipeline, { type: "text", content: "x", ...body })
        : await c.call("PATCH", `${sourcesPath(pipeline)}/${s.id}`, body);
    expect(r.status).toBe(400);
    expect(r.text).toContain(field);
    const stored = await c.call("GET", `${sourcesPath(pipeline)}/${s.id}`);
    expect(stored.body.metadata).toEqual({});
  });
});

describe("the filter applies before ranking", () => {
  let pipeline: string;
  let key: string;
  beforeAll(async () => {
    pipeline = await c.pipeline({ name: "Ranked", chunkSize: 2000, chunkOverlap: 0 });
    key = await c.key(pipeline);
    for (let i = 0; i < 60; i++) {
      const group = i < 3 ? "rare" : i % 3 === 0 ? "common" : "other";
      const words = "harbour tide ledger beacon anchor"
        .split(" ")
        .slice(0, 1 + (i % 5))
        .join(" ");
      await c.addSource(pipeline, {
        type: "text",
        name: `S${i}`,
        content: `${words} report ${i}`,
        metadata: { group },
      });
    }
    await c.allSettled(pipeline, 60_000);
  }, 90_000);

  interface Hit {
    score: number;
    metadata: { sourceName: string };
  }
  const hits = async (mode: string, topK: number, metadata?: unknown): Promise<Hit[]> => {
    const r = await c.query(key, {
      query: "harbour tide ledger report",
      mode,
      topK,
      filter: metadata ? { metadata } : {},
    });
    expect(r.status).toBe(200);
    return r.body.results;
  };
  const search = async (mode: string, topK: number, metadata?: unknown) =>
    (await hits(mode, topK, metadata)).map((h) => h.metadata.sourceName);

  test.each(MODES)("%s: 10 asked among 3 matching chunks returns those 3", async (mode) => {
    expect((await search(mode, 10, { group: "rare" })).sort()).toEqual(["S0", "S1", "S2"]);
  });

  test.each(["vector", "keyword"])("%s: 10 asked among many matching returns the best 10 of them", async (mode) => {
    const common = new Set(
      Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => i >= 3 && i % 3 === 0)
        .map((i) => `S${i}`),
    );
    // Judged by the unfiltered scores: texts repeat, so equal scores may come in either order, and
    // BM25 statistics may differ once filtered.
    const unfiltered = new Map((await hits(mode, 60)).map((h) => [h.metadata.sourceName, h.score]));
    const tenth = [...common].map((n) => unfiltered.get(n) ?? 0).sort((a, b) => b - a)[9]!;
    const got = (await hits(mode, 10, { group: "common" })).map((h) => unfiltered.get(h.metadata.sourceName) ?? -1);
    expect(got.length).toBe(10);
    expect(Math.min(...got)).toBeGreaterThanOrEqual(tenth);
    expect(got).toEqual([...got].sort((a, b) => b - a));
  });

  test("hybrid: 10 asked among many matching returns 10 of them", async () => {
    const got = await search("hybrid", 10, { group: { $in: ["common"] } });
    expect(got.length).toBe(10);
  });
});

describe("tables written before the metadata column", () => {
  test("are given the column on open, backfilled, and keep taking writes", async () => {
    const dataDir = t.dataDir;
    const pipeline = await c.pipeline({ name: "Old", chunkSize: 2000, chunkOverlap: 0 });
    const key = await c.key(pipeline);
    const old = await c.addSource(pipeline, {
      type: "text",
      content: "lighthouse keeper log",
      metadata: { era: "old" },
    });
    await c.settled(pipeline, old.body.id);
    await closeServices(t.services); // not t.close(): that removes the data directory
    const conn = await openLanceDir(dataDir);
    const table = await conn.openTable((await tablesOf(dataDir, pipeline))[0]!);
    await table.dropColumns(["metadata"]);
    table.close();
    conn.close();

    t = await makeApp({ dataDir, ollamaUrl: fake.url, workers: 1, queryRate: 100_000, queryBurst: 100_000 });
    const cookie = c.cookie; // the session lives in the same database
    c = await Client.create(t);
    const r = await c.query(key, { query: "lighthouse keeper", mode: "keyword", filter: { metadata: { era: "old" } } });
    expect(r.status).toBe(200);
    expect(r.body.results.map((h: { metadata: { sourceId: string } }) => h.metadata.sourceId)).toEqual([old.body.id]);
    // New rows go into the migrated table with their metadata.
    const added = await t.call("POST", `${sourcesPath(pipeline)}`, {
      cookie,
      body: { type: "text", content: "lighthouse lamp", metadata: { era: "new" } },
    });
    expect(added.status).toBe(201);
    await waitFor("the new source to be ready", async () => {
      const one = await t.call("GET", `${sourcesPath(pipeline)}/${added.body.id}`, { cookie });
      return one.body.status === "ready" ? one : null;
    });
    const both = await c.query(key, {
      query: "lighthouse",
      mode: "keyword",
      filter: { metadata: { era: { $in: ["old", "new"] } } },
    });
    expect(both.body.results.length).toBe(2);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
