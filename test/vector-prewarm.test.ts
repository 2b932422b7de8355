/**
 * A table's serving vector index is read into LanceDB's index cache when the table is first
 * searched (vectors/ann-builds.ts, prewarm): a search alone reads only the partitions it probes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { annIndexFor } from "../src/vectors/ann";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { type LanceConnection, lanceSession, openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { oneChunkRows, randomUnit, rng } from "./support/seeded";
import { waitFor } from "./support/wait";

const DIM = 64;
const ROWS = 20_000;
const PARTITIONS = 64;
const COLLECTION = "01a2522c-8cbf-710d-bf88-5ff1400b481a";
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-prewarm-"));
  const conn = await openLance(dir);
  const rnd = rng(5);
  const rows = oneChunkRows(Array.from({ length: ROWS }, () => randomUnit(rnd, DIM)));
  const table = await conn.createTable(VectorStore.tableName(COLLECTION, 1), rowsToArrow(rows));
  // IVF_PQ, as for 1,000,000 rows: a search probes 20 of its partitions (ann-probes.ts),
  // each read into the cache as it is probed.
  const index = annIndexFor(1_000_000, DIM, PARTITIONS);
  expect(index.indexType).toBe("IVF_PQ");
  await table.createIndex("vector", { config: index.config, name: index.name });
  table.close();
  conn.close();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the first search of a table reads its whole vector index into the cache", async () => {
  const session = lanceSession(512);
  const conn: LanceConnection = await openLance(dir, session);
  const vector = randomUnit(rng(9), DIM);
  try {
    const store = new VectorStore(conn, { annThreshold: 1 });
    await store.search(COLLECTION, 1, { mode: "vector", text: "", vector, topK: 5, vectorKind: "model" });
    const settled = await cacheSettled(session);
    // A search probing every partition then finds them all cached: it adds next to nothing.
    const table = await conn.openTable(VectorStore.tableName(COLLECTION, 1));
    await table.vectorSearch(vector).distanceType("cosine").nprobes(PARTITIONS).limit(5).toArray();
    table.close();
    const grown = Number(session.sizeBytes()) - settled;
    // The 44 partitions the first search did not probe grew it by 1.3 MB when not prewarmed;
    // prewarmed, the second search reads about 80 KB of other things.
    expect(grown).toBeLessThan(ROWS * DIM * 4 * 0.05);
  } finally {
    conn.close();
  }
}, 60_000);

test("an index is prewarmed once, though a replica forgets its index facts every upkeep step", async () => {
  const conn: LanceConnection = await openLance(dir, lanceSession(512));
  const table = await conn.openTable(VectorStore.tableName(COLLECTION, 1));
  // Every table handle of the connection shares this prototype: count the calls the store makes.
  const proto = Object.getPrototypeOf(table) as { prewarmIndex: (name: string) => Promise<void> };
  const original = proto.prewarmIndex;
  let calls = 0;
  proto.prewarmIndex = function (this: unknown, name: string) {
    calls++;
    return original.call(this, name);
  };
  try {
    const store = new VectorStore(conn, { annThreshold: 1 });
    const search = () =>
      store.search(COLLECTION, 1, {
        mode: "vector",
        text: "",
        vector: randomUnit(rng(2), DIM),
        topK: 5,
        vectorKind: "model",
      });
    await search();
    store.forgetIndexFacts();
    await search();
    expect(calls).toBe(1);
  } finally {
    proto.prewarmIndex = original;
    table.close();
    conn.close();
  }
}, 60_000);

/** The index cache's size once it stopped growing (the prewarm goes on in the background). */
async function cacheSettled(session: ReturnType<typeof lanceSession>): Promise<number> {
  let last = -1;
  await waitFor("the index cache to settle", async () => {
    await Bun.sleep(200);
    const now = Number(session.sizeBytes());
    const settled = now === last;
    last = now;
    return settled;
  });
  return last;
}
