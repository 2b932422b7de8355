/**
 * A small table's full-text tail, once a quarter of its rows, is caught up before a search
 * (vectors/table-upkeep.ts, beforeSearch): LanceDB scores an indexed row by the index's statistics and a row outside
 * it by the unindexed rows' own, so before this a word in every chunk of a pipeline's first
 * document (the rows its index was made of) weighed a tenth of the same word in documents
 * written after it, until upkeep's next pass.
 */
import { connect } from "@lancedb/lancedb";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VectorStore } from "../src/vectors/store";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

let t: TestApp;
let c: Client;

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

type Hit = { score: number; metadata: { sourceName: string } };

test("right after ingestion, a pipeline's first document ranks by the same statistics as the rest", async () => {
  const id = await c.pipeline({ name: "First document", chunkSize: 200, chunkOverlap: 0 });
  const key = await c.key(id);
  const filler = "on the island the rangers counted them at dawn and again at dusk near the jetty";
  const parts = Array.from(
    { length: 6 },
    (_, i) => `Part ${i}: the lighthouse lamp lit the lighthouse stairs ${filler}.`,
  );
  // The first document alone makes the table and its full-text index; the rest are written after.
  await c.addText(id, parts.join("\n\n"), "Long");
  expect((await c.allSettled(id, 60_000)).every((s) => s.status === "ready")).toBe(true);
  for (let i = 0; i < 4; i++)
    await c.addText(id, `Note ${i}: a lighthouse among the ${filler} and the gulls.`, `Note ${i}`);
  for (let i = 0; i < 20; i++) await c.addText(id, `Other ${i}: ${filler}.`, `Other ${i}`);
  expect((await c.allSettled(id, 60_000)).every((s) => s.status === "ready")).toBe(true);
  const r = await c.query(key, { query: "lighthouse", mode: "keyword", topK: 10 });
  const hits = r.body.results as Hit[];
  // Twice the word in a chunk of the same length outranks once.
  expect(hits.slice(0, 6).map((h) => h.metadata.sourceName)).toEqual(Array(6).fill("Long"));
  expect(hits[0]!.score).toBeGreaterThan(hits[6]!.score);
});

test("only a tail of a quarter of the rows or more, in a table under SMALL_TABLE_ROWS, is caught up first", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ragd-small-tail-"));
  const store = new VectorStore(await connect(dir), { smallTableRows: 30, annThreshold: 1e9 });
  const c = crypto.randomUUID();
  const row = (i: number) => {
    const text = `row ${i} words`;
    return {
      id: `d${i}:0`,
      documentId: `d${i}`,
      chunkIndex: 0,
      text,
      start: 0,
      end: text.length,
      vector: Float32Array.of(1, i, 0),
    };
  };
  const add = (from: number, n: number) =>
    store.replaceDocuments(
      c,
      1,
      [],
      Array.from({ length: n }, (_, k) => row(from + k)),
      { appendedAreNew: true },
    );
  const unindexed = async () => {
    const table = await (await connect(dir)).openTable(VectorStore.tableName(c, 1));
    const fts = (await table.listIndices()).find((i) => i.indexType === "FTS");
    table.close();
    return fts?.numUnindexedRows;
  };
  await add(0, 10);
  await store.search(c, 1, { mode: "keyword", text: "words", topK: 1 });
  const search = () => store.search(c, 1, { mode: "keyword", text: "words", topK: 1 });
  await add(10, 5);
  await search();
  expect(await unindexed()).toBe(0); // a tail of 5 on 10 rows: caught up first
  await add(15, 3);
  await search();
  expect(await unindexed()).toBe(3); // 3 on 15: under a quarter, left to upkeep
  await add(18, 20);
  await search();
  expect(await unindexed()).toBe(23); // 38 rows: past the table limit, left to upkeep
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a search inside a backup's snapshot does not wait for the catch-up the paused writes hold", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ragd-small-tail-"));
  const store = new VectorStore(await connect(dir), { annThreshold: 1e9 });
  const c = crypto.randomUUID();
  const rows = (from: number, n: number) =>
    Array.from({ length: n }, (_, k) => {
      const text = `row ${from + k} words`;
      const vector = Float32Array.of(1, from + k, 0);
      return {
        id: `d${from + k}:0`,
        documentId: `d${from + k}`,
        chunkIndex: 0,
        text,
        start: 0,
        end: text.length,
        vector,
      };
    });
  await store.replaceDocuments(c, 1, [], rows(0, 10), { appendedAreNew: true });
  await store.search(c, 1, { mode: "keyword", text: "words", topK: 1 });
  await store.replaceDocuments(c, 1, [], rows(10, 10), { appendedAreNew: true });
  // A tail of half the rows: a search outside the snapshot would catch it up first.
  const inside = store.frozen(() => store.search(c, 1, { mode: "keyword", text: "words", topK: 1 }));
  const late = Bun.sleep(5_000).then(() => "waited");
  expect(await Promise.race([inside.then((hits) => hits.length), late])).toBe(1);
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
