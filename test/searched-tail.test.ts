/**
 * Writes to a searched table are paced by its full-text tail (docs/API.md, Documents
 * API): the ingestion sink commits at most the room the store gives it, and the store
 * refreshes a searched table's index before letting more rows in, so every keyword search
 * tokenises a bounded tail. An unsearched table is written as before, in commits as large
 * as what is pending. Real LanceDB tables through the real sink.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkSink } from "../src/ingest/write/sink";
import { type LanceConnection, openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";

const BOUND = 40;
const D = 8;
let dir: string;
let conn: LanceConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-searched-tail-"));
  conn = await openLance(dir);
});
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const vector = (seed: number) => Float32Array.from({ length: D }, (_, i) => Math.sin(seed * 7 + i) + 1.5);

/** A document's rows: `n` chunks whose text names the document and its revision. */
function rows(doc: string, revision: string, n = 5): ChunkRow[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `${doc} ${revision} chunk${i} glaciers`;
    return { id: `${doc}:${i}`, documentId: doc, chunkIndex: i, text, start: 0, end: text.length, vector: vector(i) };
  });
}

/** Rows of the table outside its full-text index. */
async function tailOf(collectionId: string): Promise<number> {
  const table = await conn.openTable(VectorStore.tableName(collectionId, 1));
  try {
    return (await table.listIndices()).find((i) => i.indexType === "FTS")!.numUnindexedRows ?? 0;
  } finally {
    table.close();
  }
}

describe("the full-text tail of a searched table", () => {
  test("stays within the bound after every commit, while an unsearched table's grows", async () => {
    // No rest from catch-ups (write-pacing.ts): the bound holds after every commit.
    const vectorStore = new VectorStore(conn, { searchedTailRows: BOUND, searchedRest: 0, annThreshold: 1e9 });
    const [searched, unsearched] = [crypto.randomUUID(), crypto.randomUUID()];
    const docs = Array.from({ length: 30 }, (_, i) => `d${i}`);
    // Both tables hold the documents' first revision, indexed.
    for (const c of [searched, unsearched])
      await vectorStore.replaceDocuments(
        c,
        1,
        [],
        docs.flatMap((d) => rows(d, "old")),
        { appendedAreNew: true },
      );
    await vectorStore.upkeep();
    expect([await tailOf(searched), await tailOf(unsearched)]).toEqual([0, 0]);
    await vectorStore.search(searched, 1, { mode: "keyword", text: "glaciers", topK: 5 });

    // Each commit's tail, read before the sink may start its next one.
    const tails = new Map<string, number[]>([
      [searched, []],
      [unsearched, []],
    ]);
    const commit = vectorStore.replaceDocuments.bind(vectorStore);
    vectorStore.replaceDocuments = async (c, g, ids, r, opts) => {
      await commit(c, g, ids, r, opts);
      tails.get(c)!.push(await tailOf(c));
    };
    const sink = new ChunkSink(vectorStore, async (_c, _g, ids, write) => write(new Set(ids)));
    // Every document replaced by a new revision, all pending at once: 150 rows per table.
    await Promise.all(
      [searched, unsearched].flatMap((c) =>
        docs.map((d) => sink.replace({ collectionId: c, generation: 1, documentId: d }, rows(d, "new"))),
      ),
    );

    expect(tails.get(searched)!.length).toBeGreaterThan(1);
    expect(Math.max(...tails.get(searched)!)).toBeLessThanOrEqual(BOUND);
    expect(tails.get(unsearched)!.at(-1)).toBeGreaterThan(BOUND);
    // Nothing lost: one revision per document, the new one, in both tables.
    for (const c of [searched, unsearched]) {
      expect(await vectorStore.countRows(c, 1)).toBe(150);
      const hits = await vectorStore.search(c, 1, { mode: "keyword", text: "new", topK: 200 });
      expect(hits.length).toBe(150);
    }
    vectorStore.close();
  });

  test("grows while the table rests from catch-ups, and keyword searches leave it out past the limit", async () => {
    // A long rest after each catch-up; a full-text limit of 50 rows; a large table in
    // miniature, none caught up before a search (table-upkeep.ts, beforeSearch).
    const vectorStore = new VectorStore(conn, {
      searchedTailRows: 10,
      searchedRest: 1_000,
      ftsTailRows: 50,
      annThreshold: 1e9,
      smallTableRows: 0,
    });
    const c = crypto.randomUUID();
    await vectorStore.replaceDocuments(c, 1, [], rows("first", "old", 1), { appendedAreNew: true });
    await vectorStore.upkeep();
    await vectorStore.search(c, 1, { mode: "keyword", text: "glaciers", topK: 1 });
    await vectorStore.replaceDocuments(c, 1, [], rows("second", "old", 20), { appendedAreNew: true });
    // The tail (20 rows) is past half the bound: this commit's room waits for a catch-up, then the table rests.
    expect(await vectorStore.writeRoom(c, 1)).toBe(10);
    expect(await tailOf(c)).toBe(0);
    await vectorStore.replaceDocuments(c, 1, [], rows("zebra", "new", 60), { appendedAreNew: true });
    // Resting: the writes go on, and the 60-row tail is left out of keyword searches; a vector search reads it.
    expect(await vectorStore.writeRoom(c, 1)).toBe(Number.POSITIVE_INFINITY);
    expect(await tailOf(c)).toBe(60);
    expect(await vectorStore.search(c, 1, { mode: "keyword", text: "zebra", topK: 100 })).toEqual([]);
    const near = await vectorStore.search(c, 1, { mode: "vector", text: "", vector: vector(3), topK: 3 });
    expect(near.some((h) => h.documentId === "zebra")).toBe(true);
    // Caught up, it is read again.
    await vectorStore.upkeep();
    expect((await vectorStore.search(c, 1, { mode: "keyword", text: "zebra", topK: 100 })).length).toBe(60);
    vectorStore.close();
  });
});
