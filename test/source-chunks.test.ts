/**
 * A few sources' chunks read whole and scored (vectors/source-chunks.ts, TableSearch.readWhole)
 * rank and score every chunk as a search narrowed to those sources does, in vector and
 * hybrid mode, on a real LanceDB table with a full-text index; sources holding SOURCE_ROWS
 * chunks or more together are searched instead, so none of their chunks is missed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { ensureFtsIndex } from "../src/vectors/fts-index";
import { type SearchMode, searchTable, type StoredHit, type TableSearch } from "../src/vectors/search";
import { SOURCE_ROWS } from "../src/vectors/source-chunks";
import type { ChunkRow } from "../src/vectors/tables";
import { randomUnit, rng } from "./support/seeded";

const DIM = 16;
const WORDS = "amber basalt cedar delta ember fjord garnet harbor iris jasper kelp lumen".split(" ");
/** Ten sources of 30 chunks, and one of SOURCE_ROWS + 200. */
const SHORT = Array.from({ length: 10 }, (_, i) => `d${i}`);
const BIG = "big";

let dir: string;
let conn: LanceConnection;
let table: Table;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-source-chunks-"));
  conn = await openLance(dir);
  const rnd = rng(7);
  const row = (documentId: string, chunkIndex: number): ChunkRow => {
    const text = Array.from({ length: 6 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
    const vector = randomUnit(rnd, DIM);
    return { id: `${documentId}:${chunkIndex}`, documentId, chunkIndex, text, start: 0, end: text.length, vector };
  };
  const rows = [
    ...SHORT.flatMap((d) => Array.from({ length: 30 }, (_, i) => row(d, i))),
    ...Array.from({ length: SOURCE_ROWS + 200 }, (_, i) => row(BIG, i)),
  ];
  table = await conn.createTable("sources", rowsToArrow(rows));
  await ensureFtsIndex(table);
});

afterAll(() => {
  table.close();
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A search of `documentIds` as a grouped search's second look asks it, read whole or not. */
function look(
  mode: SearchMode,
  seed: number,
  documentIds: string[],
  readWhole: boolean,
  wholeRows?: number,
): Promise<StoredHit[]> {
  const rnd = rng(seed);
  const text = `${WORDS[seed % WORDS.length]} ${WORDS[(seed * 5 + 3) % WORDS.length]}`;
  const vector = randomUnit(rnd, DIM);
  // Keyword-heavy, as the built-in embedder's blend: a row far from the query still ranks by its words.
  const req: TableSearch = { mode, text, vector, topK: 60, documentIds, readWhole, wholeRows, hybridAlpha: 0.1 };
  return searchTable(table, req, null);
}

for (const mode of ["vector", "hybrid"] as const)
  test(`${mode}: every chunk of short sources ranked and scored as their search ranks them`, async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const sources = SHORT.filter((_, i) => (i + seed) % 3 === 0);
      const [read, searched] = await Promise.all([look(mode, seed, sources, true), look(mode, seed, sources, false)]);
      expect(read.length).toBe(60);
      expect(read).toEqual(searched);
    }
  });

for (const mode of ["vector", "hybrid"] as const)
  test(`${mode}: sources holding SOURCE_ROWS chunks or more are searched, not read in part`, async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const [read, searched] = await Promise.all([
        look(mode, seed, [BIG, "d1"], true),
        look(mode, seed, [BIG, "d1"], false),
      ]);
      expect(read.length).toBe(60);
      expect(read).toEqual(searched);
    }
  });

for (const mode of ["vector", "hybrid"] as const)
  test(`${mode}: a count from SQLite that says few, where the table holds many, still ranks as the search`, async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const [read, searched] = await Promise.all([
        look(mode, seed, [BIG, "d1"], true, 60),
        look(mode, seed, [BIG, "d1"], false),
      ]);
      expect(read.length).toBe(60);
      expect(read).toEqual(searched);
    }
  });
