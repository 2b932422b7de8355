/**
 * A search asked for `labels` (TableSearch.labels) gives each hit its row's metadata copy, read
 * by the list that applied the search's filter: what a restricted caller's results are checked
 * against (retrieval/current-labels.ts). Every path a hit can come from, on a real LanceDB
 * table with a full-text index and an IVF_PQ index that joins lexical candidates: flat and
 * indexed vector lists, a narrow filter's exact list, keyword, hybrid with and without
 * look-ups, and a grouped search's second look at a few sources.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileMetadataFilter } from "../src/retrieval/filter";
import { annIndexFor, vectorIndexes } from "../src/vectors/ann";
import { type AnnProbes, probesForRows } from "../src/vectors/ann-probes";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { ensureFtsIndex } from "../src/vectors/fts-index";
import { withText } from "../src/vectors/hit-text";
import { keywordHits } from "../src/vectors/keyword-hits";
import { encodeChunkMetadata, sameChunkMetadata } from "../src/vectors/meta-index";
import { type StoredHit, searchTable, type TableSearch } from "../src/vectors/search";
import type { ChunkRow } from "../src/vectors/tables";
import { randomUnit, rng } from "./support/seeded";

const DIM = 32;
const WORDS = "amber basalt cedar delta ember fjord garnet harbor iris jasper kelp lumen".split(" ");
const DOCS = 300;
const SOURCE = { sourceType: "text", externalId: null };
const labelsOf = (d: number) => encodeChunkMetadata({ team: d % 2 ? "a" : "b", doc: `d${d}` }, SOURCE);

let dir: string;
let conn: LanceConnection;
let table: Table;
let probes: AnnProbes;
const rnd = rng(3);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-hit-labels-"));
  conn = await openLance(dir);
  const rows: ChunkRow[] = [];
  for (let d = 0; d < DOCS; d++)
    for (let i = 0; i < 10; i++) {
      const text = Array.from({ length: 8 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
      const vector = randomUnit(rnd, DIM);
      const row = { id: `d${d}:${i}`, documentId: `d${d}`, chunkIndex: i, text, start: 0, end: text.length };
      rows.push({ ...row, vector, metadata: labelsOf(d) });
    }
  table = await conn.createTable("labels", rowsToArrow(rows));
  await ensureFtsIndex(table);
  const index = annIndexFor(1_000_000, DIM, 16);
  await table.createIndex("vector", { config: index.config, name: index.name });
  const [serving] = vectorIndexes(await table.listIndices());
  probes = { ...probesForRows(serving!.trainedRows, serving!.indexType, "builtin"), minimum: 4, lexical: 60 };
  expect(serving!.indexType).toBe("IvfPq");
}, 120_000);

afterAll(() => {
  table?.close();
  conn?.close();
  rmSync(dir, { recursive: true, force: true });
});

function search(change: Partial<TableSearch>, ann: AnnProbes | null = probes): Promise<StoredHit[]> {
  const text = `${WORDS[Math.floor(rnd() * WORDS.length)]} ${WORDS[Math.floor(rnd() * WORDS.length)]}`;
  const req: TableSearch = { mode: "hybrid", text, vector: randomUnit(rnd, DIM), topK: 20, labels: true, ...change };
  return searchTable(table, req, ann);
}

/** Every hit carries its own row's labels, and the filter's team. */
function expectLabelled(hits: StoredHit[], team: string): void {
  expect(hits.length).toBeGreaterThan(0);
  for (const h of hits) {
    const d = Number(h.documentId.slice(1));
    expect(h.labels === undefined ? "none" : sameChunkMetadata(h.labels, labelsOf(d))).toBe(true);
    expect(d % 2 ? "a" : "b").toBe(team);
  }
}

const teamA = compileMetadataFilter({ team: "a" })!;

test("vector lists: flat, through the index with lexical candidates, and a narrow filter's exact list", async () => {
  expectLabelled(await search({ mode: "vector", where: teamA }, null), "a");
  expectLabelled(await search({ mode: "vector", where: teamA }), "a");
  expectLabelled(await search({ mode: "vector", where: compileMetadataFilter({ doc: "d7" })! }), "a");
});

test("keyword, and hybrid with look-ups and without", async () => {
  expectLabelled(await search({ mode: "keyword", where: teamA }), "a");
  expectLabelled(await search({ where: teamA }), "a");
  expectLabelled(await search({ where: teamA, exact: false }), "a");
  expectLabelled(await search({ where: teamA, hybridAlpha: 0.9 }), "a");
});

test("a grouped search's second look at a few sources", async () => {
  const documentIds = ["d1", "d3", "d5"];
  for (const mode of ["vector", "hybrid"] as const)
    expectLabelled(await search({ mode, where: teamA, documentIds, readWhole: true, wholeRows: 30 }), "a");
});

test("without `labels`, hits carry none", async () => {
  for (const mode of ["vector", "keyword", "hybrid"] as const)
    for (const h of await search({ mode, where: teamA, labels: false })) expect(h.labels).toBeUndefined();
});

test("a hit's text is kept only from a row with the labels its list read", async () => {
  const rows = ["a", "b"].map((team, i) => {
    const text = `harbor lumen ${team}`;
    const row = { id: `x${i}:0`, documentId: `x${i}`, chunkIndex: 0, text, start: 0, end: text.length };
    return { ...row, vector: randomUnit(rnd, DIM), metadata: encodeChunkMetadata({ team: "a" }, SOURCE) };
  });
  const small = await conn.createTable("moved", rowsToArrow(rows));
  await ensureFtsIndex(small);
  const listed = await keywordHits(small, { text: "harbor" }, 10, teamA, { bare: true, labels: true });
  expect(listed.map((h) => h.documentId).sort()).toEqual(["x0", "x1"]);
  // x1's row is written again with other labels and compacted: its row id is gone, and the
  // read by chunk id, which applies no filter, finds the new row.
  const moved = {
    ...rows[1]!,
    text: "harbor lumen, for team b only",
    metadata: encodeChunkMetadata({ team: "b" }, SOURCE),
  };
  await small
    .mergeInsert("id")
    .whenMatchedUpdateAll()
    .execute(rowsToArrow([moved]));
  await small.optimize({ cleanupOlderThan: new Date() });
  const read = await withText(small, listed);
  expect(read.map((h) => [h.documentId, h.text])).toEqual([["x0", rows[0]!.text]]);
  small.close();
});
