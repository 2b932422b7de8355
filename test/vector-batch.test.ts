import { afterAll, beforeAll, expect, test } from "bun:test";
import { Index, type Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Semaphore } from "../src/tools/semaphore";
import { type AnnProbes, probesForRows } from "../src/vectors/ann-probes";
import { type LanceConnection, openLance } from "../src/vectors/connection";
import { searchTable } from "../src/vectors/search";
import { VectorStore } from "../src/vectors/store";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import type { ChunkRow } from "../src/vectors/tables";
import { VectorBatches } from "../src/vectors/vector-batch";

const DIM = 32;
const ROWS = 3000;

let dir: string;
let conn: LanceConnection;
let table: Table;
let probes: AnnProbes;

function rng(seed: number) {
  return () => ((seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 2 ** 32;
}

function unit(rnd: () => number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => rnd() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** 3,000 random rows under the HNSW index small tables get, probed as the server probes it. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-vector-batch-"));
  conn = await openLance(dir);
  const rnd = rng(11);
  const rows: ChunkRow[] = Array.from({ length: ROWS }, (_, i) => ({
    id: `d${i % 300}:${i}`,
    documentId: `d${i % 300}`,
    chunkIndex: i,
    text: `row ${i}`,
    start: i,
    end: i + 1,
    vector: unit(rnd),
  }));
  table = await conn.createTable("batch", rowsToArrow(rows));
  await table.createIndex("vector", { config: Index.hnswSq({ numPartitions: 1, distanceType: "cosine" }) });
  probes = probesForRows(ROWS, "IVF_HNSW_SQ");
});

afterAll(() => {
  table.close();
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const alone = (v: Float32Array, topK: number) =>
  searchTable(table, { mode: "vector", text: "", vector: v, topK }, probes);

test("vector searches that wait for a turn together share one query, each with the rows it gets alone", async () => {
  const batches = new VectorBatches(new Semaphore(1));
  const rnd = rng(5);
  const queries = Array.from({ length: 9 }, () => unit(rnd));
  const together = await Promise.all(queries.map((q) => batches.search("batch", table, q, 10, probes)));
  // The first found the turn free and ran alone; the other eight waited and ran as one query.
  expect(batches.ran).toEqual({ queries: 2, searches: 9 });
  for (const [i, q] of queries.entries()) {
    const expected = await alone(q, 10);
    const got = together[i]!.map(({ id: _id, stored: _stored, ...hit }) => hit);
    expect(got).toEqual(expected);
  }
});

test("a batch takes at most its maximum of searches", async () => {
  const batches = new VectorBatches(new Semaphore(1), 2);
  const rnd = rng(7);
  const queries = Array.from({ length: 7 }, () => unit(rnd));
  const got = await Promise.all(queries.map((q) => batches.search("batch", table, q, 10, probes)));
  // One alone, then the six that waited in three queries of two.
  expect(batches.ran).toEqual({ queries: 4, searches: 7 });
  for (const [i, q] of queries.entries()) expect(got[i]!.length).toBe((await alone(q, 10)).length);
});

test("only searches of the same table and limit share a query", async () => {
  const batches = new VectorBatches(new Semaphore(1));
  const rnd = rng(9);
  const queries = Array.from({ length: 10 }, () => unit(rnd));
  const topK = (i: number) => (i < 6 ? 10 : 5);
  const runs = queries.map((q, i) =>
    batches.search(i % 2 ? "batch" : "same rows, another name", table, q, topK(i), probes),
  );
  const got = await Promise.all(runs);
  // The first alone; the nine that waited fall into four shapes of name and limit, one query each.
  expect(batches.ran).toEqual({ queries: 5, searches: 10 });
  for (const [i, q] of queries.entries())
    expect(got[i]!.map((h) => h.id)).toEqual((await alone(q, topK(i))).map((h) => `${h.documentId}:${h.chunkIndex}`));
});

test("a search that finds a free turn runs at once, alone", async () => {
  const batches = new VectorBatches(new Semaphore(2));
  const rnd = rng(13);
  await batches.search("batch", table, unit(rnd), 10, probes);
  await batches.search("batch", table, unit(rnd), 10, probes);
  expect(batches.ran).toEqual({ queries: 2, searches: 2 });
});

test("the store answers concurrent vector searches as it answers each one alone", async () => {
  const vectorStore = new VectorStore(conn, { searchConcurrency: 1 });
  const collection = crypto.randomUUID();
  const rnd = rng(17);
  const rows: ChunkRow[] = Array.from({ length: 200 }, (_, i) => ({
    id: `doc${i % 20}:${i}`,
    documentId: `doc${i % 20}`,
    chunkIndex: i,
    text: `chunk ${i}`,
    start: 0,
    end: 1,
    vector: unit(rnd),
  }));
  await vectorStore.replaceDocuments(collection, 1, [], rows);
  const queries = Array.from({ length: 6 }, () => unit(rnd));
  const ask = (q: Float32Array, minScore?: number) =>
    vectorStore.search(collection, 1, { mode: "vector", text: "", vector: q, topK: 5, minScore });
  const together = await Promise.all(queries.map((q, i) => ask(q, i === 3 ? 0.2 : undefined)));
  for (const [i, q] of queries.entries()) expect(together[i]).toEqual(await ask(q, i === 3 ? 0.2 : undefined));
  expect(together[3]!.every((h) => h.score >= 0.2)).toBe(true);
  vectorStore.close();
});

test("searches of another handle under the same name never share a query", async () => {
  const batches = new VectorBatches(new Semaphore(1));
  const other = await conn.openTable("batch");
  const rnd = rng(21);
  const queries = Array.from({ length: 3 }, () => unit(rnd));
  const got = await Promise.all([
    batches.search("batch", table, queries[0]!, 10, probes),
    batches.search("batch", table, queries[1]!, 10, probes),
    batches.search("batch", other, queries[2]!, 10, probes),
  ]);
  other.close();
  expect(batches.ran).toEqual({ queries: 3, searches: 3 });
  for (const [i, q] of queries.entries())
    expect(got[i]!.map((h) => h.id)).toEqual((await alone(q, 10)).map((h) => `${h.documentId}:${h.chunkIndex}`));
});
