// The bucket cache (src/vectors/bucket-cache.ts) between LanceDB and a real S3-compatible
// store (Ceph RGW): the same answers as without it, a restart served from its directory,
// its bound kept, writes seen at once, and nothing outside ragd's tables reachable through it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStorage } from "../src/config-storage";
import { signRequest, UNSIGNED_PAYLOAD } from "../src/files/sign-request";
import { type BucketCache, startBucketCache } from "../src/vectors/bucket-cache";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { type CacheReaderJob, searchBoth } from "./support/bucket-cache-reader";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";
import { rowsOf } from "./support/vector-writer";

if (!haveRgw) console.log(`bucket cache tests skipped: ${NO_RGW}`);

const MiB = 2 ** 20;

describe.skipIf(!haveRgw)("the bucket cache on Ceph RGW", () => {
  let rgw: TestRgw;
  const dirs: string[] = [];
  beforeAll(async () => {
    rgw = await startRgw();
  }, 300_000);
  afterAll(async () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await rgw?.stop();
  }, 30_000);

  const at = (prefix: string): ObjectStorage => ({ ...rgw.storage, prefix });
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "ragd-bucket-cache-"));
    dirs.push(d);
    return d;
  };
  const s3 = () => {
    const s = rgw.storage;
    return new S3Client({
      ...s,
      endpoint: s.endpoint!,
      accessKeyId: s.accessKeyId!,
      secretAccessKey: s.secretAccessKey!,
    });
  };
  const dirBytes = (dir: string) => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  /** A request to the cache signed as LanceDB signs it: with the cache's made-up keys. */
  const ask = (
    cache: BucketCache,
    where: ObjectStorage,
    method: string,
    key: string,
    headers = {},
    body?: Uint8Array<ArrayBuffer>,
  ) => {
    const signed = signRequest(
      { ...where, endpoint: cache.endpoint, accessKeyId: cache.accessKeyId, secretAccessKey: cache.secretAccessKey },
      { method, key, query: {}, headers, payloadHash: UNSIGNED_PAYLOAD },
    );
    return fetch(signed.url, { method, headers: signed.headers, body });
  };
  const writeDocs = async (vectorStore: VectorStore, c: string, from: number, to: number) => {
    for (let d = from; d < to; d++) await vectorStore.replaceDocuments(c, 1, [`d${d}`], rowsOf(`d${d}`, d));
  };

  test("gives the answers the store gives, and a restarted process reads the table from its directory", async () => {
    const where = at("same");
    const dir = tempDir();
    const c = crypto.randomUUID();
    const plain = new VectorStore(await openLance(where));
    await writeDocs(plain, c, 0, 6);
    const expected = await searchBoth(plain, c);
    plain.close();
    expect(expected.length).toBeGreaterThan(5);

    const cache = startBucketCache(where, { dir, maxBytes: 256 * MiB });
    const cached = new VectorStore(await openLance(where, undefined, cache));
    try {
      expect(await searchBoth(cached, c)).toEqual(expected);
      const cold = { ...cache.counters };
      expect(cold.upstreamGets).toBeGreaterThan(0);
      expect(await searchBoth(cached, c)).toEqual(expected);
      expect(cache.counters.upstreamGets).toBe(cold.upstreamGets); // the second time, no data from the store
      expect(cache.counters.blockHits).toBeGreaterThan(cold.blockHits);
    } finally {
      cached.close();
      cache.stop();
    }

    const job: CacheReaderJob = { storage: where, dir, collectionId: c };
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "support", "bucket-cache-reader.ts"), JSON.stringify(job)],
      {
        stdout: "pipe",
        stderr: "inherit",
      },
    );
    const out = JSON.parse(await new Response(child.stdout).text()) as {
      hits: string[];
      counters: BucketCache["counters"];
    };
    expect(await child.exited).toBe(0);
    expect(out.hits).toEqual(expected);
    expect(out.counters.upstreamGets).toBe(0);
    expect(out.counters.upstreamHeads).toBe(0);
    expect(out.counters.blockHits).toBeGreaterThan(0);
  }, 120_000);

  test("a write through the cache is read at once: manifests are never served from it", async () => {
    const where = at("fresh");
    const cache = startBucketCache(where, { dir: tempDir(), maxBytes: 256 * MiB });
    const vectorStore = new VectorStore(await openLance(where, undefined, cache));
    const c = crypto.randomUUID();
    try {
      await writeDocs(vectorStore, c, 0, 3);
      expect(await vectorStore.countRows(c, 1)).toBe(30);
      const before = await searchBoth(vectorStore, c);
      await writeDocs(vectorStore, c, 3, 5);
      await vectorStore.replaceDocuments(c, 1, ["d0"], []);
      expect(await vectorStore.countRows(c, 1)).toBe(40);
      const after = await searchBoth(vectorStore, c);
      expect(after).not.toEqual(before);
      expect(after.some((h) => h.startsWith("d4:"))).toBe(true);
      expect(after.some((h) => h.startsWith("d0:"))).toBe(false);
    } finally {
      vectorStore.close();
      cache.stop();
    }
  }, 120_000);

  test("serves ranges across blocks, keeps its directory under its bound, and forgets a key written again", async () => {
    const where = at("bound");
    const dir = tempDir();
    const cache = startBucketCache(where, { dir, maxBytes: 3 * MiB });
    const objects = Array.from({ length: 5 }, (_, i) => {
      const bytes = Buffer.alloc(2 * MiB + 1000);
      for (let j = 0; j < bytes.length; j += 4) bytes.writeUInt32LE((j * 2654435761 + i) >>> 0, j);
      return { key: `bound/lance/t.lance/data/f${i}.lance`, bytes };
    });
    try {
      for (const o of objects) await s3().write(o.key, o.bytes);
      for (const o of objects) {
        const res = await ask(cache, where, "GET", o.key, { range: `bytes=${MiB - 10}-${2 * MiB + 20}` });
        expect(res.status).toBe(206);
        expect(Buffer.from(await res.arrayBuffer()).equals(o.bytes.subarray(MiB - 10, 2 * MiB + 21))).toBe(true);
        expect(dirBytes(dir)).toBeLessThanOrEqual(3 * MiB);
      }
      const head = await ask(cache, where, "HEAD", objects[4]!.key);
      expect(head.headers.get("content-length")).toBe(String(2 * MiB + 1000));
      const whole = await ask(cache, where, "GET", objects[4]!.key);
      expect(Buffer.from(await whole.arrayBuffer()).equals(objects[4]!.bytes)).toBe(true);
      expect(dirBytes(dir)).toBeLessThanOrEqual(3 * MiB);

      const hits = cache.counters.blockHits;
      const again = await ask(cache, where, "GET", objects[4]!.key, { range: "bytes=0-99" });
      expect(Buffer.from(await again.arrayBuffer()).equals(objects[4]!.bytes.subarray(0, 100))).toBe(true);
      expect(cache.counters.blockHits).toBe(hits + 1);

      const replaced = new Uint8Array(500).fill(7);
      expect((await ask(cache, where, "PUT", objects[4]!.key, {}, replaced)).status).toBe(200);
      const fresh = await ask(cache, where, "GET", objects[4]!.key, { range: "bytes=0-99" });
      expect(Buffer.from(await fresh.arrayBuffer()).equals(Buffer.from(replaced.subarray(0, 100)))).toBe(true);
    } finally {
      cache.stop();
    }
  }, 120_000);

  test("refuses other keys, paths that leave the bucket and requests not signed with its own key", async () => {
    const where = at("guard");
    const cache = startBucketCache(where, { dir: tempDir(), maxBytes: 16 * MiB });
    try {
      await s3().write("guard/secret.txt", "not LanceDB's");
      await s3().write("guard/lance/t.lance/data/a.lance", "table bytes");
      expect((await ask(cache, where, "GET", "guard/secret.txt")).status).toBe(403);
      expect((await ask(cache, where, "GET", "guard/lance/t.lance/data/a.lance")).status).toBe(200);
      const climbed = await fetch(`${cache.endpoint}/${where.bucket}/guard/lance/../secret.txt`);
      expect(climbed.status).toBe(403);
      const dotted = await fetch(`${cache.endpoint}/${where.bucket}/guard/lance/%2e%2e/secret.txt`);
      expect(dotted.status).toBe(403);
      const signed = signRequest(where, {
        method: "GET",
        key: "guard/lance/t.lance/data/a.lance",
        query: {},
        headers: {},
        payloadHash: UNSIGNED_PAYLOAD,
      });
      const borrowed = await fetch(signed.url.replace(where.endpoint!, cache.endpoint), { headers: signed.headers });
      expect(borrowed.status).toBe(403); // the store's own keys are not the cache's
    } finally {
      cache.stop();
    }
  }, 60_000);
});
