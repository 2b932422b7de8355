/**
 * The text of the hits a hybrid search keeps, read after its lists by row id
 * (vectors/hit-text.ts): also when a compaction moved the rows in between, and without a
 * hit whose row was deleted meanwhile.
 */
import { connect } from "@lancedb/lancedb";
import { rmSync } from "node:fs";
import { afterAll, expect, test } from "bun:test";
import { tempDir } from "./support/temp";
import { chunkId } from "../src/vectors/chunk-id";
import type { Ranked } from "../src/vectors/hits";
import { withText } from "../src/vectors/hit-text";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const row = (i: number) => ({
  id: chunkId("d", i),
  document_id: "d",
  chunk_index: i,
  text: `chunk ${i}`,
  start: i * 10,
  end: i * 10 + 7,
});

/** Bare hits (no text, a row id) of chunks `from`…`to` - 1, as a list reads them. */
async function bareHits(
  table: Awaited<ReturnType<Awaited<ReturnType<typeof connect>>["createTable"]>>,
  from: number,
  to: number,
) {
  const rows = await table
    .query()
    .where(`chunk_index >= ${from} AND chunk_index < ${to}`)
    .withRowId()
    .select(["chunk_index"])
    .toArrow();
  const indexes = rows.getChild("chunk_index")!.toArray() as Int32Array;
  const rowIds = rows.getChild("_rowid")!.toArray() as BigUint64Array;
  return Array.from(
    indexes,
    (i, k): Ranked => ({
      id: chunkId("d", i),
      documentId: "d",
      chunkIndex: i,
      text: "",
      start: 0,
      end: 0,
      score: 1 - i / 100,
      rowId: rowIds[k]!,
    }),
  );
}

test("reads the kept hits' text by row id, in order", async () => {
  const table = await (await connect(dir)).createTable(
    "plain",
    Array.from({ length: 20 }, (_, i) => row(i)),
  );
  const hits = (await bareHits(table, 5, 9)).reverse();
  const read = await withText(table, hits);
  expect(read.map((h) => [h.chunkIndex, h.text, h.start, h.end])).toEqual(
    [8, 7, 6, 5].map((i) => [i, `chunk ${i}`, i * 10, i * 10 + 7]),
  );
  expect(read.every((h) => h.rowId === undefined)).toBe(true);
});

test("reads by chunk id the rows a compaction moved, and leaves out a deleted one", async () => {
  const table = await (await connect(dir)).createTable(
    "moved",
    Array.from({ length: 50 }, (_, i) => row(i)),
  );
  await table.add(Array.from({ length: 50 }, (_, i) => row(50 + i)));
  const hits = await bareHits(table, 40, 60);
  await table.delete("chunk_index < 41");
  await table.optimize({ cleanupOlderThan: new Date() });
  const read = await withText(table, hits);
  expect(read.map((h) => h.chunkIndex)).toEqual(Array.from({ length: 19 }, (_, i) => 41 + i));
  expect(read.every((h) => h.text === `chunk ${h.chunkIndex}` && h.start === h.chunkIndex * 10)).toBe(true);
});
