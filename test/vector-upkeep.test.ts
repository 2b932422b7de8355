/**
 * Index upkeep as a table grows: the full-text index is refreshed during ingestion once
 * its tail is long, and the ANN index is retrained beside the serving one, so recall
 * holds at each size step and neither writes nor searches wait for a build.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { HNSW_UNTIL, vectorIndexes as vectorIndexesOf } from "../src/vectors/ann";
import type { AnnProbes } from "../src/vectors/ann-probes";
import { childProcess, type IndexBuilder, inProcess } from "../src/vectors/index-build";
import type { TableUpkeep } from "../src/vectors/table-upkeep";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { dot } from "./support/dot";

const D = 32;
let dir: string;
let conn: LanceConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-upkeep-"));
  conn = await openLance(dir);
});
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const rnd = (
  (seed: number) => () =>
    ((seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 2 ** 32
)(11);
const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const normalise = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
// Loose clusters, like embeddings (as in vectors.test.ts).
const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: D }, gauss));
const draw = () => normalise(centres[Math.floor(rnd() * centres.length)]!.map((x) => x + 1.5 * gauss()));

function chunk(i: number, vector: Float32Array, text = `row ${i}`): ChunkRow {
  return { id: `d${i}:0`, documentId: `d${i}`, chunkIndex: 0, text, start: 0, end: text.length, vector };
}

/** The vector indexes of a collection's table, serving one first (ann.ts). */
async function vectorIndexes(c: string) {
  return vectorIndexesOf(await indexes(c));
}

async function indexes(c: string) {
  const t = await conn.openTable(VectorStore.tableName(c, 1));
  const out = await t.listIndices();
  t.close();
  return out;
}

describe("full-text tail during ingestion", () => {
  test("catchUpTails indexes a searched table whose tail reached the limit, and only such a table", async () => {
    const vectorStore = new VectorStore(conn, { ftsTailRows: 50, annThreshold: 1e9 });
    const [long, short, unsearched] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const c of [long, short, unsearched])
      await vectorStore.replaceDocuments(c, 1, [], [chunk(0, draw(), "first words")]);
    await vectorStore.upkeep();
    // Searched lately: the first two. The third is loaded in bulk and waits for the full pass.
    for (const c of [long, short]) await vectorStore.search(c, 1, { mode: "keyword", text: "first", topK: 1 });
    const add = (c: string, from: number, n: number) =>
      vectorStore.replaceDocuments(
        c,
        1,
        [],
        Array.from({ length: n }, (_, k) => chunk(from + k, draw(), `tail word${from + k}`)),
        { appendedAreNew: true },
      );
    await add(long, 1, 60);
    await add(short, 1, 20);
    await add(unsearched, 1, 60);
    await vectorStore.catchUpTails();
    const tail = async (c: string) => (await indexes(c)).find((i) => i.indexType === "FTS")!.numUnindexedRows;
    expect(await tail(long)).toBe(0);
    expect(await tail(short)).toBe(20);
    expect(await tail(unsearched)).toBe(60);
    // The short and the unsearched tails are still owed to the next full pass.
    await vectorStore.upkeep();
    expect(await tail(short)).toBe(0);
    expect(await tail(unsearched)).toBe(0);
    const [hit] = await vectorStore.search(long, 1, { mode: "keyword", text: "word42", topK: 1 });
    expect(hit?.documentId).toBe("d42");
    vectorStore.close();
  });
});

test("catchUpTails leaves a searched table resting from its last catch-up, and a replica takes every long tail", async () => {
  // A rest of a thousand times the catch-up's duration outlasts the test.
  const vectorStore = new VectorStore(conn, {
    ftsTailRows: 50,
    annThreshold: 1e9,
    searchedTailRows: 10,
    searchedRest: 1000,
  });
  const replica = new VectorStore(conn, { ftsTailRows: 50, annThreshold: 1e9, sharedTables: true });
  const [resting, loaded] = [crypto.randomUUID(), crypto.randomUUID()];
  const add = async (store: VectorStore, c: string, from: number, n: number) => {
    const rows = Array.from({ length: n }, (_, k) => chunk(from + k, draw(), `tail word${from + k}`));
    await store.replaceDocuments(c, 1, [], rows, { appendedAreNew: true });
  };
  const tail = async (c: string) => (await indexes(c)).find((i) => i.indexType === "FTS")!.numUnindexedRows;
  await vectorStore.replaceDocuments(resting, 1, [], [chunk(0, draw(), "first words")]);
  await vectorStore.upkeep();
  await vectorStore.search(resting, 1, { mode: "keyword", text: "first", topK: 1 });
  await add(vectorStore, resting, 1, 8);
  // The commit after a tail of 8 (of 10) waits for a catch-up: the table rests after it.
  expect(await vectorStore.writeRoom(resting, 1)).toBe(10);
  await add(vectorStore, resting, 9, 60);
  await vectorStore.catchUpTails();
  expect(await tail(resting)).toBe(60);
  // A replica: searches of the table it loads may go to another one, so its long tail is caught up.
  await replica.replaceDocuments(loaded, 1, [], [chunk(0, draw(), "first words")]);
  await replica.upkeep();
  await add(replica, loaded, 1, 60);
  await replica.catchUpTails();
  expect(await tail(loaded)).toBe(0);
  vectorStore.close();
  replica.close();
});

test("a table loaded unsearched leaves its long tail out of keyword searches until a catch-up after it is searched", async () => {
  // A large table in miniature: none caught up before a search (table-upkeep.ts, beforeSearch).
  const vectorStore = new VectorStore(conn, { ftsTailRows: 50, annThreshold: 1e9, smallTableRows: 0 });
  const c = crypto.randomUUID();
  await vectorStore.replaceDocuments(c, 1, [], [chunk(0, draw(), "first words")]);
  await vectorStore.upkeep();
  const rows = Array.from({ length: 60 }, (_, k) => chunk(1 + k, draw(), `tail word${1 + k}`));
  await vectorStore.replaceDocuments(c, 1, [], rows, { appendedAreNew: true });
  await vectorStore.catchUpTails();
  const tail = async () => (await indexes(c)).find((i) => i.indexType === "FTS")!.numUnindexedRows;
  expect(await tail()).toBe(60);
  const keyword = () => vectorStore.search(c, 1, { mode: "keyword", text: "word42", topK: 1 });
  // Not tokenised again in every search: left out until caught up. A vector search reads it.
  expect(await keyword()).toEqual([]);
  const [near] = await vectorStore.search(c, 1, { mode: "vector", text: "", vector: rows[41]!.vector, topK: 1 });
  expect(near?.documentId).toBe("d42");
  // Searched now: the next catch-up of tails takes it.
  await vectorStore.catchUpTails();
  expect(await tail()).toBe(0);
  expect((await keyword())[0]?.documentId).toBe("d42");
  vectorStore.close();
});

describe("a pass asked for while one runs", () => {
  test("covers the writes made before the call, not only those the running pass saw", async () => {
    const vectorStore = new VectorStore(conn, { annThreshold: 1e9 });
    const [c, d] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const x of [c, d]) await vectorStore.replaceDocuments(x, 1, [], [chunk(0, draw(), "first words")]);
    await vectorStore.upkeep();
    await vectorStore.replaceDocuments(c, 1, [], [chunk(1, draw(), "second words")], { appendedAreNew: true });
    const running = vectorStore.upkeep(); // takes the tables written so far: c
    await vectorStore.replaceDocuments(d, 1, [], [chunk(1, draw(), "second words")], { appendedAreNew: true });
    await vectorStore.upkeep();
    for (const x of [c, d]) expect((await indexes(x)).find((i) => i.indexType === "FTS")!.numUnindexedRows).toBe(0);
    await running;
    vectorStore.close();
  });
});

describe("ANN index as a table grows", () => {
  const THRESHOLD = 300;
  const c = crypto.randomUUID();
  const vectors: Float32Array[] = [];
  let vectorStore: VectorStore;
  beforeAll(() => {
    vectorStore = new VectorStore(conn, { annThreshold: THRESHOLD, ftsTailRows: 1 });
  });
  afterAll(() => vectorStore.close());

  const grow = async (to: number) => {
    const from = vectors.length;
    while (vectors.length < to) vectors.push(draw());
    const rows = vectors.slice(from).map((v, k) => chunk(from + k, v));
    await vectorStore.replaceDocuments(c, 1, [], rows, { appendedAreNew: true });
  };
  const exactTop = (q: Float32Array, k: number) =>
    vectors
      .map((v, i) => ({ i, s: dot(v, q) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, k)
      .map((x) => `d${x.i}`);
  const recall = async () => {
    let found = 0;
    for (let q = 0; q < 40; q++) {
      const v = draw();
      const truth = new Set(exactTop(v, 10));
      const hits = await vectorStore.search(c, 1, { mode: "vector", text: "", vector: v, topK: 10 });
      found += hits.filter((h) => truth.has(h.documentId)).length;
    }
    return found / 400;
  };
  const vectorIndexes = async () => (await indexes(c)).filter((i) => i.columns.includes("vector")).map((i) => i.name);

  test("each doubling trains a new index in place of the old, and recall@10 stays at 0.95 or more", async () => {
    await grow(250);
    await vectorStore.upkeep();
    expect(await vectorIndexes()).toEqual([]);
    const seen: string[] = [];
    for (const rows of [400, 900, 1900]) {
      await grow(rows);
      await vectorStore.upkeep();
      const names = await vectorIndexes();
      // One index, trained on the table as it is now, not on the rows of the first build.
      expect(names).toEqual([`vector_hnswsq_${rows}`]);
      seen.push(names[0]!);
      const r = await recall();
      if (process.env.RAGD_TEST_VERBOSE) console.log(rows, r);
      expect(r).toBeGreaterThanOrEqual(0.95);
    }
    // Growth below the doubling keeps the index (optimize folds the new rows into it).
    await grow(2200);
    await vectorStore.upkeep();
    expect(await vectorIndexes()).toEqual(["vector_hnswsq_1900"]);
    expect(await recall()).toBeGreaterThanOrEqual(0.95);
  });

  test("writes and searches during a retrain finish before it does; compaction waits for it", async () => {
    await grow(4000);
    let built = false;
    const build = vectorStore.upkeep().then(() => (built = true));
    // The pass before the build runs in the write queue; wait for the build itself.
    while (!vectorStore.indexBuilding) await Bun.sleep(1);
    const q = draw();
    const [hits] = await Promise.all([
      vectorStore.search(c, 1, { mode: "vector", text: "", vector: q, topK: 5 }),
      vectorStore.replaceDocuments(c, 1, [], [chunk(4000, q)], { appendedAreNew: true }),
    ]);
    expect(hits.length).toBe(5);
    // A full-text refresh would compact the table and so preempt the new index's commit: it waits.
    await vectorStore.catchUpTails();
    const ftsTail = async () => (await indexes(c)).find((i) => i.indexType === "FTS")!.numUnindexedRows;
    expect(await ftsTail()).toBeGreaterThan(0);
    expect(built).toBe(false);
    await build;
    await vectorStore.catchUpTails();
    expect(await ftsTail()).toBe(0);
    expect(await vectorIndexes()).toEqual(["vector_hnswsq_4000"]);
    const [self] = await vectorStore.search(c, 1, { mode: "vector", text: "", vector: q, topK: 1 });
    expect(self?.documentId).toBe("d4000");
  });
});

describe("keyword search while an index trains", () => {
  test("past the refresh limit it leaves the unrefreshed tail out, the vector search does not; after the training it is back", async () => {
    const c = crypto.randomUUID();
    const name = VectorStore.tableName(c, 1);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const builder: IndexBuilder = async (table, tableName, n) => {
      await gate;
      await inProcess(table, tableName, n);
    };
    const vectorStore = new VectorStore(conn, { annThreshold: 300, ftsTailRows: 50, indexBuilder: builder });
    const tableUpkeep = (vectorStore as unknown as { tableUpkeep: TableUpkeep }).tableUpkeep;
    const write = (from: number, n: number, word: string) =>
      vectorStore.replaceDocuments(
        c,
        1,
        [],
        Array.from({ length: n }, (_, k) => chunk(from + k, draw(), `${word} row ${from + k}`)),
        { appendedAreNew: true },
      );
    const keyword = async (word: string) =>
      (await vectorStore.search(c, 1, { mode: "keyword", text: word, topK: 100 })).map((h) => h.documentId);
    try {
      await write(0, 400, "plain");
      const build = vectorStore.upkeep();
      while (!vectorStore.indexBuilding) await Bun.sleep(1);
      // A short tail is still read by every keyword search.
      await write(400, 10, "yak");
      await vectorStore.catchUpTails();
      expect(tableUpkeep.indexedTextOnly(name)).toBe(false);
      expect((await keyword("yak")).length).toBe(10);
      // Past the limit it is left out until the training ends (a refresh would cost the training its commit).
      const zebra = draw();
      await write(410, 59, "zebra");
      await vectorStore.replaceDocuments(c, 1, [], [chunk(469, zebra, "zebra row 469")], { appendedAreNew: true });
      await vectorStore.catchUpTails();
      expect(tableUpkeep.indexedTextOnly(name)).toBe(true);
      expect(await keyword("zebra")).toEqual([]);
      expect(await keyword("plain")).not.toEqual([]);
      const [nearest] = await vectorStore.search(c, 1, { mode: "vector", text: "zebra", vector: zebra, topK: 1 });
      expect(nearest?.documentId).toBe("d469");
      // Hybrid's vector half finds it too; its keyword half leaves it out.
      const [blend] = await vectorStore.search(c, 1, { mode: "hybrid", text: "zebra", vector: zebra, topK: 1 });
      expect(blend?.documentId).toBe("d469");
      release();
      await build;
      // Still past the limit: left out until a catch-up takes it, then read again.
      expect(tableUpkeep.indexedTextOnly(name)).toBe(true);
      await vectorStore.catchUpTails();
      expect(tableUpkeep.indexedTextOnly(name)).toBe(false);
      expect((await keyword("zebra")).length).toBe(60);
    } finally {
      release();
      vectorStore.close();
    }
  }, 60_000);
});

describe("ANN training in a child process", () => {
  const fill = async (vectorStore: VectorStore, c: string, n: number) =>
    vectorStore.replaceDocuments(
      c,
      1,
      [],
      Array.from({ length: n }, (_, i) => chunk(i, draw())),
      { appendedAreNew: true },
    );

  test("the child trains the index on the data directory; this process sees and serves it", async () => {
    const vectorStore = new VectorStore(conn, { annThreshold: 300, indexBuilder: childProcess(dir) });
    const c = crypto.randomUUID();
    try {
      await fill(vectorStore, c, 400);
      await vectorStore.upkeep();
      const vector = (await indexes(c)).filter((i) => i.columns.includes("vector")).map((i) => i.name);
      expect(vector).toEqual(["vector_hnswsq_400"]);
      const q = draw();
      await vectorStore.replaceDocuments(c, 1, [], [chunk(400, q)], { appendedAreNew: true });
      const [self] = await vectorStore.search(c, 1, { mode: "vector", text: "", vector: q, topK: 1 });
      expect(self?.documentId).toBe("d400");
    } finally {
      vectorStore.close();
    }
  }, 60_000);

  test("stopping the builder ends a child still training: nothing is committed after", async () => {
    const vectorStore = new VectorStore(conn, { annThreshold: 1_000_000 });
    const c = crypto.randomUUID();
    try {
      await fill(vectorStore, c, 400);
      const name = VectorStore.tableName(c, 1);
      const builder = childProcess(dir);
      const build = builder(await conn.openTable(name), name, 400);
      builder.stop!();
      expect(
        await build.then(
          () => "committed",
          (e: Error) => e.message,
        ),
      ).toMatch(/index build exited with/);
      expect((await indexes(c)).filter((i) => i.columns.includes("vector"))).toEqual([]);
    } finally {
      vectorStore.close();
    }
  }, 60_000);

  test("a child that fails leaves the table as it was and says why", async () => {
    const logged: string[] = [];
    const elsewhere = mkdtempSync(join(tmpdir(), "ragd-upkeep-other-"));
    const vectorStore = new VectorStore(conn, {
      annThreshold: 300,
      indexBuilder: childProcess(elsewhere),
      log: (msg, fields) => logged.push(`${msg} ${JSON.stringify(fields)}`),
    });
    const c = crypto.randomUUID();
    try {
      await fill(vectorStore, c, 400);
      await vectorStore.upkeep();
      expect((await indexes(c)).filter((i) => i.columns.includes("vector"))).toEqual([]);
      // The child opened another data directory, where the table does not exist.
      expect(
        logged.some((l) => l.startsWith("vector index build failed") && l.includes("index build exited with")),
      ).toBe(true);
    } finally {
      vectorStore.close();
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("an index its table outgrew", () => {
  // One table through two kinds of index; the second retrain waits for `release`.
  const c = crypto.randomUUID();
  const name = VectorStore.tableName(c, 1);
  let rows = 0;
  let builds = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const builder: IndexBuilder = async (table, tableName, n) => {
    if (++builds === 3) await gate;
    await inProcess(table, tableName, n);
  };
  let vectorStore: VectorStore;
  beforeAll(() => {
    vectorStore = new VectorStore(conn, { annThreshold: 10_000, indexBuilder: builder });
  });
  afterAll(() => vectorStore.close());
  const grow = async (to: number) => {
    const batch = Array.from({ length: to - rows }, (_, k) => chunk(rows + k, draw()));
    rows = to;
    await vectorStore.replaceDocuments(c, 1, [], batch, { appendedAreNew: true });
  };
  const probes = async () => {
    const table = await conn.openTable(name);
    const tableUpkeep = (vectorStore as unknown as { tableUpkeep: TableUpkeep }).tableUpkeep;
    const p = await tableUpkeep.probesFor(name, table);
    table.close();
    return p!;
  };

  test("past the size its kind serves, before the doubling, a new kind is trained", async () => {
    await grow(HNSW_UNTIL - 10_000);
    await vectorStore.upkeep();
    expect((await vectorIndexes(c)).map((i) => i.name)).toEqual([`vector_hnswsq_${HNSW_UNTIL - 10_000}`]);
    await grow(HNSW_UNTIL);
    await vectorStore.upkeep();
    expect((await vectorIndexes(c)).map((i) => i.name)).toEqual([`vector_ivfflat_${HNSW_UNTIL}`]);
  }, 120_000);

  test("an IVF_FLAT index serving a table 3 × its size reads no more rows than at 2 × while its retrain runs", async () => {
    const fresh = await probes();
    await grow(3 * HNSW_UNTIL);
    const upkeep = vectorStore.upkeep();
    while (!vectorStore.indexBuilding) await Bun.sleep(5);
    const stale = await probes();
    // Rows a search reads: probed partitions × rows per partition.
    const read = (p: AnnProbes, tableRows: number) => p.minimum * (tableRows / p.maximum);
    expect(read(stale, 3 * HNSW_UNTIL)).toBeLessThanOrEqual(
      read(fresh, 2 * HNSW_UNTIL) + (3 * HNSW_UNTIL) / fresh.maximum,
    );
    expect(stale.minimum).toBeLessThan(fresh.minimum);
    release();
    await upkeep;
    expect((await vectorIndexes(c)).map((i) => i.name)).toEqual([`vector_ivfflat_${3 * HNSW_UNTIL}`]);
    expect((await probes()).minimum).toBeGreaterThan(fresh.minimum);
  }, 120_000);
});
