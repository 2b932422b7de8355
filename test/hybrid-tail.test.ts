/**
 * Look-ups narrowed to a few rows score them as the search's own keyword list does, also
 * while they are outside the full-text index (a table's newest rows, until upkeep catches
 * up): LanceDB scores such rows by the statistics of the rows a search is narrowed to, so
 * a look-up of one row gave a word found mostly in new rows a far higher weight than the
 * whole table gives it (vectors/tail-scores.ts, SearchOptions.textTail). The two
 * look-ups: hybrid search's for a chunk only its vector list found, and a reranked pool's
 * missing keyword halves. Real LanceDB table, indexed rows and a tail outside the index.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { type LanceConnection, openLance } from "../src/vectors/connection";
import { ensureFtsIndex } from "../src/vectors/fts-index";
import { blend } from "../src/vectors/fusion";
import { searchTable, type StoredHit, type TableSearch } from "../src/vectors/search";
import { VectorStore } from "../src/vectors/store";
import type { ChunkRow } from "../src/vectors/tables";
import { randomUnit, rng } from "./support/seeded";

const DIM = 16;
const WORDS = "amber basalt cedar delta ember fjord garnet harbor iris jasper kelp lumen".split(" ");
const NEW_WORD = "quartz";
/** The chunk only the vector list finds: the query's word once among many, its vector the query's. */
const FAR = "far:0";

let dir: string;
let conn: LanceConnection;
let table: Table;
let indexed: ChunkRow[];
let tail: ChunkRow[];
const rnd = rng(11);
const query = randomUnit(rng(99), DIM);

function row(id: string, words: string[], vector = randomUnit(rnd, DIM)): ChunkRow {
  const text = words.join(" ");
  const [documentId, index] = id.split(":");
  return { id, documentId: documentId!, chunkIndex: Number(index), text, start: 0, end: text.length, vector };
}
const some = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]!);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-hybrid-tail-"));
  conn = await openLance(dir);
  indexed = Array.from({ length: 400 }, (_, i) => row(`old:${i}`, some(8)));
  table = await conn.createTable("chunks", rowsToArrow(indexed));
  await ensureFtsIndex(table);
  // Written after the index: 120 short chunks with the new word fill the keyword list; the
  // long one ranks below them there, and first by its vector.
  tail = [
    ...Array.from({ length: 120 }, (_, i) => row(`t${i % 6}:${i}`, [NEW_WORD, ...some(5)])),
    row(FAR, [NEW_WORD, ...some(60)], query),
  ];
  await table.add(rowsToArrow(tail));
});

afterAll(() => {
  table.close();
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const ask = (mode: TableSearch["mode"], topK: number): TableSearch => ({
  mode,
  text: NEW_WORD,
  vector: query,
  topK,
  hybridAlpha: 0.5,
});
const search = (mode: TableSearch["mode"], topK: number): Promise<StoredHit[]> =>
  searchTable(table, ask(mode, topK), null, { textTail: true });

const scoreOf = (hits: StoredHit[], id: string) => hits.find((h) => `${h.documentId}:${h.chunkIndex}` === id)?.score;

test("a tail chunk found only by its vector gets the keyword score the whole table gives it", async () => {
  expectWholeTableScores(await Promise.all([search("keyword", 200), search("vector", 200), search("hybrid", 10)]));
});

test("a look-up of a few chunks' keyword scores gives them as the whole table does", async () => {
  // A reranked pool's missing halves (retrieval/searcher.ts): chunks of the tail and indexed ones.
  const ids = [FAR, "t3:3", "t5:77", "old:5", "old:120"];
  const [keyword, looked] = await Promise.all([
    search("keyword", 200),
    searchTable(table, { ...ask("keyword", ids.length), chunkIds: ids }, null, { textTail: true }),
  ]);
  const expected = ids.flatMap((id) => (scoreOf(keyword, id) === undefined ? [] : [[id, scoreOf(keyword, id)]]));
  expect(expected.length).toBe(3);
  const got = looked.map((h) => [`${h.documentId}:${h.chunkIndex}`, h.score]);
  expect(new Map(got as [string, number][])).toEqual(new Map(expected as [string, number][]));
});

test("the store searches a table written since its upkeep as one with a tail", async () => {
  // A large table in miniature: none caught up before a search (table-upkeep.ts, beforeSearch).
  const store = new VectorStore(conn, { annThreshold: 1e9, smallTableRows: 0 });
  const collection = crypto.randomUUID();
  try {
    await store.replaceDocuments(collection, 1, [], indexed, { appendedAreNew: true });
    await store.upkeep();
    await store.replaceDocuments(collection, 1, [], tail, { appendedAreNew: true });
    const search = (mode: TableSearch["mode"], topK: number) => store.search(collection, 1, ask(mode, topK));
    expectWholeTableScores(await Promise.all([search("keyword", 200), search("vector", 200), search("hybrid", 10)]));
  } finally {
    store.close();
  }
});

test("a table whose rows' metadata was rewritten since its catch-up is searched as one with a tail", async () => {
  // A rewrite moves the rows out of the full-text index as a write does (writer.ts rewrote).
  const store = new VectorStore(conn, {
    annThreshold: 1e9,
    smallTableRows: 0,
    metadataOf: (_c, ids) => new Map(ids.map((id) => [id, JSON.stringify({ team: "new" })])),
  });
  const collection = crypto.randomUUID();
  try {
    await store.replaceDocuments(collection, 1, [], [...indexed, ...tail], { appendedAreNew: true });
    await store.upkeep();
    await store.rewriteMetadata(collection, ["far", "t0", "t1", "t2", "t3", "t4", "t5"]);
    const search = (mode: TableSearch["mode"], topK: number) => store.search(collection, 1, ask(mode, topK));
    expectWholeTableScores(await Promise.all([search("keyword", 200), search("vector", 200), search("hybrid", 10)]));
  } finally {
    store.close();
  }
});

/** Each hybrid hit scores the blend of its keyword and vector scores, the far chunk among them. */
function expectWholeTableScores([keyword, vector, hybrid]: StoredHit[][]): void {
  // The set-up holds: the far chunk is outside the first keyword list (50 deep) and first by vector.
  expect(keyword.findIndex((h) => `${h.documentId}:${h.chunkIndex}` === FAR)).toBeGreaterThanOrEqual(50);
  expect(`${vector[0]!.documentId}:${vector[0]!.chunkIndex}`).toBe(FAR);
  const expected = blend({ keyword: scoreOf(keyword!, FAR)!, vector: scoreOf(vector!, FAR)! }, 0.5);
  expect(scoreOf(hybrid, FAR)).toBeCloseTo(expected, 6);
  // And every other hit too.
  for (const h of hybrid) {
    const id = `${h.documentId}:${h.chunkIndex}`;
    expect(h.score).toBeCloseTo(blend({ keyword: scoreOf(keyword, id) ?? 0, vector: scoreOf(vector, id)! }, 0.5), 6);
  }
}
