// ragd's VectorStore on a real S3-compatible store (Ceph RGW, test/support/rgw.ts), from
// one process and from several at once, as replicas sharing a bucket write.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import type { ObjectStorage } from "../src/config-storage";
import { lanceUri, openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";
import { CHUNKS_PER_DOC, rowsOf, runWriters, vectorOf } from "./support/vector-writer";

if (!haveRgw) console.log(`object storage tests skipped: ${NO_RGW}`);

describe.skipIf(!haveRgw)("the vector store on Ceph RGW", () => {
  let rgw: TestRgw;
  beforeAll(async () => {
    rgw = await startRgw();
  }, 180_000);
  afterAll(() => rgw?.stop(), 30_000);

  /** The bucket's settings under a prefix of the test's own. */
  const at = (prefix: string): ObjectStorage => ({ ...rgw.storage, prefix });
  const keysUnder = async (prefix: string) => {
    const s = rgw.storage;
    const s3 = new S3Client({
      ...s,
      endpoint: s.endpoint!,
      accessKeyId: s.accessKeyId!,
      secretAccessKey: s.secretAccessKey!,
    });
    return ((await s3.list({ prefix })).contents ?? []).map((o) => o.key);
  };
  /** Opens the store, runs `check`, closes it. */
  const withStore = async <T>(where: ObjectStorage, check: (s: VectorStore) => Promise<T>): Promise<T> => {
    const store = new VectorStore(await openLance(where));
    try {
      return await check(store);
    } finally {
      store.close();
    }
  };

  test("keeps its tables under <prefix>/lance in the bucket, and drops them without a trace", async () => {
    const where = at("single");
    expect(lanceUri(where)).toBe(`s3://${rgw.storage.bucket}/single/lance`);
    const collectionId = crypto.randomUUID();
    await withStore(where, async (store) => {
      await store.replaceDocuments(collectionId, 1, ["a"], rowsOf("a", 1));
      await store.replaceDocuments(collectionId, 1, ["b"], rowsOf("b", 2));
      await store.replaceDocuments(collectionId, 1, ["a"], rowsOf("a", 1));
      expect(await store.countRows(collectionId, 1)).toBe(2 * CHUNKS_PER_DOC);
      const hits = await store.search(collectionId, 1, { mode: "vector", text: "", vector: vectorOf(201), topK: 1 });
      expect(hits.map((h) => `${h.documentId}:${h.chunkIndex}`)).toEqual(["b:1"]);
      const words = await store.search(collectionId, 1, { mode: "keyword", text: "glaciers", topK: 20 });
      expect(words.length).toBe(10); // the odd chunks of both documents
    });
    const keys = await keysUnder("single/");
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`single/lance/${VectorStore.tableName(collectionId, 1)}.lance/`))).toBe(true);
    await withStore(where, (store) => store.dropCollection(collectionId));
    expect(await keysUnder("single/")).toEqual([]);
  }, 60_000);

  test("processes whose first writes create one table at once all keep their rows", async () => {
    const where = at("create-race");
    const collectionId = crypto.randomUUID();
    const writers = ["w1", "w2", "w3", "w4"];
    const results = await runWriters(writers.map((name) => ({ where, collectionId, name, docs: 1, replayEvery: 0 })));
    // Before the creation race was handled, the losers failed with "Table … already exists".
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    const counts = await withStore(where, (s) => s.documentCounts(collectionId, 1));
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(writers.map((w) => [`${w}-d0`, CHUNKS_PER_DOC])));
  }, 120_000);

  test("writers in several processes lose no row and duplicate none, with no lock", async () => {
    // RGW honours put-if-absent, on which LanceDB's commits to s3:// rely (test/s3-files.test.ts):
    // a commit that loses the race reloads and retries instead of overwriting.
    const where = at("writers");
    const collectionId = crypto.randomUUID();
    const [writers, docs] = [["w1", "w2", "w3"], 6];
    const results = await runWriters(writers.map((name) => ({ where, collectionId, name, docs, replayEvery: 3 })));
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    await withStore(where, async (store) => {
      const counts = await store.documentCounts(collectionId, 1);
      expect(counts.size).toBe(writers.length * docs);
      expect([...counts.values()].every((n) => n === CHUNKS_PER_DOC)).toBe(true);
      expect(await store.countRows(collectionId, 1)).toBe(writers.length * docs * CHUNKS_PER_DOC);
    });
  }, 180_000);
});
