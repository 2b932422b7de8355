/**
 * Reads by LanceDB row id whose rows changed since the ids were read (a write over them, a
 * delete, a compaction while a search ran): the vectors of the rows still there, none for
 * the rest, and no error (vectors/hits.ts vectorsByRowId). A hybrid search under load once
 * answered 500 when every row of such a take had been written over.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { type LanceConnection, openLance } from "../src/vectors/connection";
import { vectorsByRowId } from "../src/vectors/hits";
import type { ChunkRow } from "../src/vectors/tables";

let dir: string;
let conn: LanceConnection;
let table: Table;

const row = (doc: string, i: number): ChunkRow => ({
  id: `${doc}:${i}`,
  documentId: doc,
  chunkIndex: i,
  text: `chunk ${i} of ${doc}`,
  start: 0,
  end: 10,
  vector: Float32Array.from({ length: 4 }, (_, k) => i + k + 1),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-row-takes-"));
  conn = await openLance(dir);
  table = await conn.createTable("rows", rowsToArrow([0, 1, 2].map((i) => row("a", i))));
  await table.add(rowsToArrow([0, 1].map((i) => row("b", i))));
});

afterAll(() => {
  table.close();
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const rowIdsOf = async (where: string) =>
  Array.from(
    (await table.query().where(where).withRowId().select(["id"]).toArrow())
      .getChild("_rowid")!
      .toArray() as BigUint64Array,
  );

test("the vectors of rows still there; none, and no error, for rows deleted or moved since", async () => {
  const a = await rowIdsOf("document_id = 'a'");
  const b = await rowIdsOf("document_id = 'b'");
  expect((await vectorsByRowId(table, [...a, ...b])).size).toBe(5);
  await table.delete("document_id = 'b'");
  // Every id of the take gone: LanceDB answers without columns.
  expect((await vectorsByRowId(table, b)).size).toBe(0);
  const kept = await vectorsByRowId(table, [...a, ...b]);
  expect([...kept.keys()].sort()).toEqual([...a].sort());
  // Compacted: the rows moved to new row ids.
  await table.optimize();
  const moved = await vectorsByRowId(table, a);
  expect(moved.size).toBeLessThanOrEqual(a.length);
});
