// Presigned uploads, the put-if-absent probe and abandoned multipart uploads on a real S3-compatible store (Ceph RGW,
// started by test/support/rgw.ts; .ci/run installs it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import type { ObjectStorage } from "../src/config-storage";
import { abortStaleUploads, STALE_UPLOAD_MS } from "../src/files/orphans";
import { presignPut, presignUrl } from "../src/files/presign";
import { probePutIfAbsent } from "../src/files/put-if-absent";
import { abortUpload, createUpload, listUploads } from "../src/files/s3-multipart";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";

if (!haveRgw) console.log(`object storage tests skipped: ${NO_RGW}`);

// CI installs Ceph RGW; there a missing one is a failure, not a quiet skip.
test.skipIf(haveRgw || !process.env.CI)("CI has the Ceph RGW the object storage tests need", () => {
  expect(haveRgw).toBe(true);
});

describe.skipIf(!haveRgw)("on Ceph RGW", () => {
  let rgw: TestRgw;
  let store: ObjectStorage;
  beforeAll(async () => {
    rgw = await startRgw();
    store = rgw.storage;
  }, 300_000);
  afterAll(() => rgw?.stop(), 30_000);

  const put = (url: string, body: string) => fetch(url, { method: "PUT", body }).then((r) => r.status);
  const read = async (key: string) => {
    const r = await fetch(presignUrl(store, { method: "GET", key, expiresInS: 60 }));
    return { status: r.status, body: await r.text() };
  };
  const keysUnder = async (prefix: string) => {
    const s3 = new S3Client({
      ...store,
      endpoint: store.endpoint!,
      accessKeyId: store.accessKeyId!,
      secretAccessKey: store.secretAccessKey!,
    });
    return ((await s3.list({ prefix })).contents ?? []).map((o) => o.key);
  };

  describe("a presigned PUT", () => {
    const body = "hello world\n";

    test("takes the declared size and refuses another", async () => {
      const key = `uploads/${crypto.randomUUID()}`;
      const url = presignPut(store, key, { contentLength: body.length, expiresInS: 60 });
      expect(await put(url, `${body}!`)).toBe(403);
      expect(await put(url, body.slice(1))).toBe(403);
      expect((await read(key)).status).toBe(404);
      expect(await put(url, body)).toBe(200);
      expect(await read(key)).toEqual({ status: 200, body });
    });

    test("is refused once it has expired", async () => {
      const key = `uploads/${crypto.randomUUID()}`;
      const signedAt = new Date(Date.now() - 10 * 60_000);
      const expired = presignPut(store, key, { contentLength: body.length, expiresInS: 60, now: signedAt });
      expect(await put(expired, body)).toBe(403);
      const fresh = presignPut(store, key, { contentLength: body.length, expiresInS: 60 });
      expect(await put(fresh, body)).toBe(200);
    });

    test("works for keys that need escaping", async () => {
      const key = `uploads/a b/ü+(1)*'!~.txt`;
      expect(await put(presignPut(store, key, { contentLength: body.length, expiresInS: 60 }), body)).toBe(200);
      expect(await read(key)).toEqual({ status: 200, body });
      expect(await keysUnder("uploads/a b/")).toEqual([key]);
    });
  });

  describe("the put-if-absent probe", () => {
    test("finds it honoured, under any prefix, and leaves nothing behind", async () => {
      expect(await probePutIfAbsent(store)).toBe("honoured");
      expect(await probePutIfAbsent({ ...store, prefix: "tenant/a" })).toBe("honoured");
      expect(await keysUnder("_ragd/")).toEqual([]);
      expect(await keysUnder("tenant/a/_ragd/")).toEqual([]);
    });

    test("finds it ignored behind a proxy that drops If-None-Match", async () => {
      // RGW seen through it behaves as a store that ignores the header: every PUT overwrites.
      const target = new URL(store.endpoint!).origin;
      const proxy = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        async fetch(req) {
          const headers = new Headers(req.headers);
          headers.delete("if-none-match");
          const { pathname, search } = new URL(req.url);
          const body = req.body ? await req.arrayBuffer() : undefined;
          return fetch(`${target}${pathname}${search}`, { method: req.method, headers, body });
        },
      });
      try {
        expect(await probePutIfAbsent({ ...store, endpoint: `http://127.0.0.1:${proxy.port}` })).toBe("ignored");
      } finally {
        proxy.stop(true);
      }
    });

    test("throws, rather than guess, when the store refuses the keys", async () => {
      await expect(probePutIfAbsent({ ...store, secretAccessKey: "not-the-secret" })).rejects.toThrow(/answered 403/);
    });
  });

  describe("abandoned multipart uploads", () => {
    test("are aborted once stale, only under ragd's file areas of its prefix", async () => {
      const keys = ["orphans/files/c/d", "orphans/uploads/s/g", "orphans/lance/t.lance/data/x", "elsewhere/files/c/d"];
      for (const key of keys) await createUpload(store, key);
      const pending = async () => (await listUploads(store, "")).map((u) => u.key).sort();
      const mine = { ...store, prefix: "orphans" };
      // Just started: nothing is stale yet.
      expect(await abortStaleUploads(mine)).toBe(0);
      expect(await pending()).toEqual([...keys].sort());
      const later = Date.now() + STALE_UPLOAD_MS + 60_000;
      expect(await abortStaleUploads(mine, { now: later })).toBe(2);
      // LanceDB's own uploads under the prefix, and anything outside it, are left alone.
      expect(await pending()).toEqual(["elsewhere/files/c/d", "orphans/lance/t.lance/data/x"]);
      expect(await abortStaleUploads(mine, { now: later })).toBe(0);
      for (const u of await listUploads(store, "")) await abortUpload(store, u.key, u.uploadId);
      expect(await pending()).toEqual([]);
    });
  });
});
