/**
 * How far a filtered search over an IVF index probes (vectors/probe-ceiling.ts): a
 * filter matching every row probes like no filter at all, a narrow filter still finds
 * the exact filtered neighbours, and matches clustered in partitions past the ceiling
 * are found by the retry over every partition. Real LanceDB table, IVF_FLAT index;
 * searched with no exact path for narrow filters (exact-filter.test.ts tests that one).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Index, type Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnnProbes } from "../src/vectors/ann-probes";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { compareNumber } from "../src/vectors/meta-index";
import { ceilingFor, filteredProbes } from "../src/vectors/probe-ceiling";
import { searchTable, type StoredHit } from "../src/vectors/search";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import type { ChunkRow } from "../src/vectors/tables";
import { exactIds, randomUnit, rng, unit } from "./support/seeded";

const DIM = 32;
const PER_GROUP = 1000;
const PROBES: AnnProbes = { minimum: 4, maximum: 40, refine: 1 };

let dir: string;
let conn: LanceConnection;
let table: Table;

/** A direction near +axis 0 (sign 1) or −axis 0 (sign −1), spread over the other axes. */
function around(rnd: () => number, sign: number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => rnd() * 2 - 1);
  v[0] = sign * 4;
  return unit(v);
}

/** Group "near" around +axis 0, group "far" around −axis 0, 1,000 rows each. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-probes-"));
  conn = await openLance(dir);
  const rnd = rng(42);
  const rows: ChunkRow[] = [];
  for (const [doc, sign] of [
    ["near", 1],
    ["far", -1],
  ] as const)
    for (let i = 0; i < PER_GROUP; i++)
      rows.push({
        id: `${doc}:${i}`,
        documentId: doc,
        chunkIndex: i,
        text: "t",
        start: 0,
        end: 1,
        vector: around(rnd, sign),
      });
  table = await conn.createTable("probes", rowsToArrow(rows));
  await table.createIndex("vector", {
    config: Index.ivfFlat({ numPartitions: PROBES.maximum, distanceType: "cosine" }),
  });
});

afterAll(() => {
  table.close();
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = (hits: StoredHit[]) => hits.map((h) => `${h.documentId}:${h.chunkIndex}`);

async function search(vector: Float32Array, where?: string, probes: AnnProbes | null = PROBES): Promise<string[]> {
  const req = { mode: "vector" as const, text: "", vector, topK: 10, where };
  return ids(await searchTable(table, req, probes, { exactFilter: { share: 0, offset: 0, rows: 0 } }));
}

test("the ceiling is minimum ÷ share, between minimum and maximum", () => {
  expect(ceilingFor(PROBES, 2000, 2000)).toBe(4);
  expect(ceilingFor(PROBES, 1000, 2000)).toBe(8);
  expect(ceilingFor(PROBES, 10, 2000)).toBe(40);
  expect(ceilingFor(PROBES, 0, 2000)).toBe(40);
});

test("a filter with a range is not counted (that would read every row's JSON) and keeps every partition", async () => {
  expect(await filteredProbes(table, compareNumber("year", ">=", 2009), PROBES)).toBeNull();
  expect(await filteredProbes(table, "chunk_index >= 0", PROBES)).toEqual({ ceiling: 4, matches: 2000, rows: 2000 });
});

test("a filter matching every row probes as no filter does", async () => {
  // Uniform queries over few probes miss some neighbours; probing every partition
  // would find them, so the lists differ unless the filtered search probes as few.
  const rnd = rng(7);
  let differsFromExact = 0;
  for (let i = 0; i < 8; i++) {
    const q = randomUnit(rnd, DIM);
    const plain = await search(q);
    expect(await search(q, "chunk_index >= 0")).toEqual(plain);
    if (plain.join() !== (await exactIds(table, q, "chunk_index >= 0")).join()) differsFromExact++;
  }
  // The check above can fail: at least one query's probed list is not the exact one.
  expect(differsFromExact).toBeGreaterThan(0);
});

test("matches clustered away from the query still fill topK (retry over every partition)", async () => {
  // Half the rows match, so the ceiling is 8 partitions, all of them near the query and holding no match.
  const q = around(rng(9), 1);
  const where = "document_id = 'far'";
  const got = await search(q, where);
  expect(got).toHaveLength(10);
  expect(got.every((id) => id.startsWith("far:"))).toBe(true);
});

test("a narrow filter finds the exact filtered neighbours", async () => {
  const rnd = rng(11);
  const where = "chunk_index < 10";
  for (let i = 0; i < 4; i++) {
    const q = randomUnit(rnd, DIM);
    expect(await search(q, where)).toEqual(await exactIds(table, q, where));
  }
});
