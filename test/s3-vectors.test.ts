// ragd's VectorStore on a real S3-compatible store (Ceph RGW, test/support/rgw.ts), from
// one process and from several at once, as replicas sharing a bucket write.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import type { ObjectStorage } from "../src/config-storage";
import { lanceUri, openLance } from "../src/vectors/connection";
import { awaitCreation, objectStoreCreation } from "../src/vectors/table-creation";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { childProcess } from "../src/vectors/index-build";
import { VectorStore } from "../src/vectors/store";
import { UNNAMED_GRACE_MS } from "../src/vectors/upkeep-limits";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";
import { CHUNKS_PER_DOC, rowsOf, runWriters, vectorOf } from "./support/vector-writer";

if (!haveRgw) console.log(`object storage tests skipped: ${NO_RGW}`);

describe.skipIf(!haveRgw)("the vector store on Ceph RGW", () => {
  let rgw: TestRgw;
  beforeAll(async () => {
    rgw = await startRgw();
  }, 300_000);
  afterAll(() => rgw?.stop(), 30_000);

  /** The bucket's settings under a prefix of the test's own. */
  const at = (prefix: string): ObjectStorage => ({ ...rgw.storage, prefix });
  const bucket = () => {
    const s = rgw.storage;
    return new S3Client({
      ...s,
      endpoint: s.endpoint!,
      accessKeyId: s.accessKeyId!,
      secretAccessKey: s.secretAccessKey!,
    });
  };
  const keysUnder = async (prefix: string) => ((await bucket().list({ prefix })).contents ?? []).map((o) => o.key);
  /** Opens the store, runs `check`, closes it. */
  const withStore = async <T>(where: ObjectStorage, check: (s: VectorStore) => Promise<T>): Promise<T> => {
    const vectorStore = new VectorStore(await openLance(where));
    try {
      return await check(vectorStore);
    } finally {
      vectorStore.close();
    }
  };

  test("keeps its tables under <prefix>/lance in the bucket, and drops them without a trace", async () => {
    const where = at("single");
    expect(lanceUri(where)).toBe(`s3://${rgw.storage.bucket}/single/lance`);
    const collectionId = crypto.randomUUID();
    await withStore(where, async (vectorStore) => {
      await vectorStore.replaceDocuments(collectionId, 1, ["a"], rowsOf("a", 1));
      await vectorStore.replaceDocuments(collectionId, 1, ["b"], rowsOf("b", 2));
      await vectorStore.replaceDocuments(collectionId, 1, ["a"], rowsOf("a", 1));
      expect(await vectorStore.countRows(collectionId, 1)).toBe(2 * CHUNKS_PER_DOC);
      const hits = await vectorStore.search(collectionId, 1, {
        mode: "vector",
        text: "",
        vector: vectorOf(201),
        topK: 1,
      });
      expect(hits.map((h) => `${h.documentId}:${h.chunkIndex}`)).toEqual(["b:1"]);
      const words = await vectorStore.search(collectionId, 1, { mode: "keyword", text: "glaciers", topK: 20 });
      expect(words.length).toBe(10); // the odd chunks of both documents
    });
    const keys = await keysUnder("single/");
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`single/lance/${VectorStore.tableName(collectionId, 1)}.lance/`))).toBe(true);
    await withStore(where, (vectorStore) => vectorStore.dropCollection(collectionId));
    expect(await keysUnder("single/")).toEqual([]);
  }, 60_000);

  test("the index builder's child process trains on the bucket's table, the store's settings in its environment", async () => {
    const where = at("ann");
    const c = crypto.randomUUID();
    const conn = await openLance(where);
    const vectorStore = new VectorStore(conn, { annThreshold: 300, indexBuilder: childProcess(where) });
    try {
      const docs = Array.from({ length: 40 }, (_, d) => `d${d}`);
      await vectorStore.replaceDocuments(
        c,
        1,
        docs,
        docs.flatMap((d, i) => rowsOf(d, i)),
      );
      await vectorStore.upkeep();
      const table = await conn.openTable(VectorStore.tableName(c, 1));
      const vector = (await table.listIndices()).filter((i) => i.columns.includes("vector"));
      table.close();
      expect(vector.map((i) => i.name)).toEqual(["vector_hnswsq_400"]);
    } finally {
      vectorStore.close();
      conn.close();
    }
  }, 120_000);

  test("a failed child's message never carries the store's secret", async () => {
    const where = at("ann-fail");
    // The child names the table it could not open: a table named like the secret puts the secret in its stderr.
    const build = childProcess(where);
    const conn = await openLance(where);
    try {
      const table = await conn.createTable(`t${crypto.randomUUID().slice(0, 8)}`, [{ id: "a", vector: [0, 1] }]);
      const failure = await build(table, where.secretAccessKey!, 1).then(
        () => null,
        (err: Error) => err.message,
      );
      table.close();
      expect(failure).toContain("index build exited with");
      expect(failure).toContain("***");
      expect(failure).not.toContain(where.secretAccessKey!);
    } finally {
      conn.close();
    }
  }, 120_000);

  test("processes whose first writes create the same tables at once all keep their rows", async () => {
    const where = at("create-race");
    // Several new tables at once: each one is a race between the processes.
    const collectionIds = Array.from({ length: 6 }, () => crypto.randomUUID());
    const [writers, chunks] = [["w1", "w2", "w3", "w4"], 3_000];
    const results = await runWriters(
      writers.map((name) => ({ where, collectionIds, name, docs: 1, replayEvery: 0, chunks })),
    );
    // Before creation was reserved, losers failed with "Table … already exists", or overwrote
    // the winner's table with theirs (LanceDB rebases a losing create as an overwrite).
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    const want = Object.fromEntries(writers.map((w) => [`${w}-d0`, chunks]));
    for (const id of collectionIds) {
      const counts = await withStore(where, (s) => s.documentCounts(id, 1));
      expect(Object.fromEntries(counts)).toEqual(want);
    }
  }, 120_000);

  test("a table whose creation another process reserved is waited for, then written into", async () => {
    const where = at("claimed");
    const collectionId = crypto.randomUUID();
    const name = VectorStore.tableName(collectionId, 1);
    const reservations = objectStoreCreation(where);
    expect(await reservations.reserve(name)).toBe(true);
    expect(await reservations.reserve(name)).toBe(false);
    let settled = false;
    const waiting = withStore(where, (s) => s.replaceDocuments(collectionId, 1, ["a"], rowsOf("a", 1))).finally(
      () => (settled = true),
    );
    await Bun.sleep(1_500);
    expect(settled).toBe(false);
    // The reservation.s holder creates the table with its own rows, then lets go.
    const conn = await openLance(where);
    (await conn.createTable(name, rowsToArrow(rowsOf("b", 2)))).close();
    conn.close();
    await reservations.release(name);
    await waiting;
    const counts = await withStore(where, (s) => s.documentCounts(collectionId, 1));
    expect(Object.fromEntries(counts)).toEqual({ a: CHUNKS_PER_DOC, b: CHUNKS_PER_DOC });
    expect(await keysUnder("claimed/_ragd/")).toEqual([]);
  }, 60_000);

  test("a reservation whose holder died is given up after the wait, and can be taken again", async () => {
    const reservations = objectStoreCreation(at("stale"));
    expect(await reservations.reserve("c_x_g1")).toBe(true);
    await expect(awaitCreation(reservations, "c_x_g1", async () => null, 500)).rejects.toThrow(/has not created it/);
    expect(await reservations.reserve("c_x_g1")).toBe(true);
  });

  test("writers in several processes lose no row and duplicate none, with no lock", async () => {
    // RGW honours put-if-absent, on which LanceDB's commits to s3:// rely (test/s3-files.test.ts):
    // a commit that loses the race reloads and retries instead of overwriting.
    const where = at("writers");
    const collectionId = crypto.randomUUID();
    const [writers, docs] = [["w1", "w2", "w3"], 6];
    const results = await runWriters(
      writers.map((name) => ({ where, collectionIds: [collectionId], name, docs, replayEvery: 3 })),
    );
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    await withStore(where, async (vectorStore) => {
      const counts = await vectorStore.documentCounts(collectionId, 1);
      expect(counts.size).toBe(writers.length * docs);
      expect([...counts.values()].every((n) => n === CHUNKS_PER_DOC)).toBe(true);
      expect(await vectorStore.countRows(collectionId, 1)).toBe(writers.length * docs * CHUNKS_PER_DOC);
    });
  }, 300_000);
  test("a delete by one process right after another's append removes the appended rows too", async () => {
    const where = at("stale");
    const collectionId = crypto.randomUUID();
    const a = new VectorStore(await openLance(where), { sharedTables: true });
    const b = new VectorStore(await openLance(where), { sharedTables: true });
    try {
      await a.replaceDocuments(collectionId, 1, ["z"], rowsOf("z", 1, 5)); // a's handle: the first version
      // Another process, within the second, appends a later slice of the document (a pure append).
      const later = rowsOf("z", 2, 8).slice(5);
      await b.replaceDocuments(collectionId, 1, [], later, { appendedAreNew: true });
      await a.replaceDocuments(collectionId, 1, ["z"], []); // then a clears the document (a failed run, say)
      const counts = await a.documentCounts(collectionId, 1);
      // Nothing of it is left: a's handle, up to a second old, is brought up to date before it deletes.
      expect(counts.get("z") ?? 0).toBe(0);
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);

  test("objects no table version names go once older than the grace period; named ones stay", async () => {
    const where = at(`unnamed-${crypto.randomUUID().slice(0, 8)}`);
    const collectionId = crypto.randomUUID();
    const data = `${where.prefix}/lance/${VectorStore.tableName(collectionId, 1)}.lance/data/`;
    await withStore(where, async (vectorStore) => {
      // One write, one data file: compaction has nothing to rewrite.
      await vectorStore.replaceDocuments(collectionId, 1, ["a", "b"], [...rowsOf("a", 1), ...rowsOf("b", 2)]);
      const named = await keysUnder(data);
      expect(named.length).toBeGreaterThan(0);
      // What a replica killed between writing a data file and committing the version naming it leaves.
      const planted = `${data}${crypto.randomUUID()}.lance`;
      await bucket().write(planted, new Uint8Array(4096).fill(7));
      // Within the grace period it stays: a write still running may yet name it.
      expect(await vectorStore.removeUnnamed(new Date(Date.now() - UNNAMED_GRACE_MS))).toBe(1);
      expect(await keysUnder(data)).toContain(planted);
      // Past it it goes (a cutoff a few seconds ahead stands for a day on: the store's times
      // are whole seconds); the files the table's version names stay.
      expect(await vectorStore.removeUnnamed(new Date(Date.now() + 3_000))).toBe(1);
      const left = await keysUnder(data);
      expect(left).not.toContain(planted);
      expect(left.sort()).toEqual(named.sort());
      expect(await vectorStore.countRows(collectionId, 1)).toBe(2 * CHUNKS_PER_DOC);
    });
  }, 60_000);
});
