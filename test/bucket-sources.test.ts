/**
 * Bucket sources (docs/API.md, "Bucket sources") on a real S3-compatible store (Ceph RGW,
 * test/support/rgw.ts), a bucket of this file's own: a prefix synced three times with
 * objects added, changed and deleted between syncs; the keys never in an answer; the
 * endpoint under the fetch rules; bad keys and an unreachable store fail the sync and
 * delete nothing.
 */
import { reportOf, syncedSources } from "./support/synced-sources";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { ObjectStorage } from "../src/config-storage";
import { readBucketSettings } from "../src/core/bucket-settings";
import { checkBucketSettings } from "../src/features/sources/bucket";
import { presignUrl } from "../src/files/presign";
import { DocumentsFixture } from "./support/documents";
import { chunkRows, duplicates, NO_DUPLICATES, type SourceJson, waitFor } from "./support/ingest";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";

if (!haveRgw) console.log(`bucket source tests skipped: ${NO_RGW}`);

// CI installs Ceph RGW; there a missing one is a failure, not a quiet skip.
test.skipIf(haveRgw || !process.env.CI)("CI has the Ceph RGW the bucket source tests need", () => {
  expect(haveRgw).toBe(true);
});

/** Text of about `n` sentences about `topic`: a few chunks at chunkSize 100. */
const prose = (topic: string, n = 6) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} of the ${topic} notes speaks of ${topic} matters.`).join(" ");

describe("bucket source settings, no store needed", () => {
  const keys = { accessKeyId: "k", secretAccessKey: "s" };
  const none = { fetchAllow: [], fetchDeny: [] };

  test("a loopback endpoint is refused unless the fetch rules allow it", () => {
    const b = { endpoint: "http://127.0.0.1:7480", bucket: "docs", ...keys };
    expect(() => checkBucketSettings(b, none)).toThrow("refused by the fetch rules (loopback)");
    expect(checkBucketSettings(b, { ...none, fetchAllow: ["127.0.0.1"] }).settings).toMatchObject({
      endpoint: "http://127.0.0.1:7480",
      prefix: "",
      region: "us-east-1",
      pathStyle: true,
      maxFileMb: 50,
    });
  });

  test("the prefix ends in a slash; the keys are not settings", () => {
    const read = readBucketSettings({ endpoint: "https://s3.corp/", bucket: "docs", prefix: "/a/b", ...keys });
    if (Array.isArray(read)) throw new Error(JSON.stringify(read));
    expect(read.settings.prefix).toBe("a/b/");
    expect(read.settings.endpoint).toBe("https://s3.corp");
    expect(JSON.stringify(read.settings)).not.toContain('"s"');
  });

  test("pathStyle false names the bucket in the host", () => {
    const store = { bucket: "b", prefix: "", endpoint: "http://s3.corp:7480", region: "us-east-1", ...keys };
    const at = (virtualHosted: boolean) =>
      new URL(presignUrl({ ...store, virtualHosted }, { method: "GET", key: "x/y.md", expiresInS: 60 }));
    expect(at(false).host + at(false).pathname).toBe("s3.corp:7480/b/x/y.md");
    expect(at(true).host + at(true).pathname).toBe("b.s3.corp:7480/x/y.md");
  });
});

describe.skipIf(!haveRgw)("bucket sources on Ceph RGW", () => {
  let rgw: TestRgw;
  let store: ObjectStorage;
  const f = new DocumentsFixture();
  const { filesOf: objectsOf, synced, refetch } = syncedSources(f);

  const put = async (key: string, body: string) => {
    const r = await fetch(presignUrl(store, { method: "PUT", key, expiresInS: 60 }), { method: "PUT", body });
    if (!r.ok) throw new Error(`PUT ${key}: ${r.status}`);
  };
  const remove = async (key: string) => {
    const r = await fetch(presignUrl(store, { method: "DELETE", key, expiresInS: 60 }), { method: "DELETE" });
    if (!r.ok) throw new Error(`DELETE ${key}: ${r.status}`);
  };
  /** The create body of a bucket source on `store` (the test user's keys). */
  const body = (more: Record<string, unknown> = {}) => ({
    type: "s3",
    endpoint: store.endpoint,
    bucket: store.bucket,
    accessKeyId: store.accessKeyId,
    secretAccessKey: store.secretAccessKey,
    ...more,
  });

  beforeAll(async () => {
    rgw = await startRgw();
    store = await rgw.createBucket("ragd-bucket-src");
    // The store listens on loopback, which the fetch rules refuse unless allowed.
    await f.open({ fetchAllow: ["127.0.0.1"] });
  }, 300_000);
  afterAll(async () => {
    await f.close();
    await rgw?.stop();
  }, 30_000);

  async function failedSync(id: string): Promise<SourceJson> {
    expect((await refetch(id)).status).toBe(202);
    return waitFor("the sync to fail", async () => {
      const s = await f.c.source(f.pid, id);
      return s?.status === "failed" ? s : undefined;
    });
  }

  async function index() {
    const contents = await f.contents();
    const col = (await f.c.getPipeline(f.pid)) as { activeGeneration?: number };
    const rows = await chunkRows(f.t.dataDir, f.pid, col.activeGeneration ?? 1);
    return { text: contents.join("\n"), dupes: duplicates(rows.map((r) => r.id)), rows: rows.length };
  }

  describe("settings", () => {
    test("an endpoint the fetch rules refuse is 400 at creation, naming the rule", async () => {
      const r = await f.c.addSource(f.pid, body({ endpoint: "http://169.254.169.254" }));
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain("refused by the fetch rules");
    });

    test("missing keys or bucket, or s3 fields on another type, are 400", async () => {
      const { secretAccessKey: _s, ...noSecret } = body();
      expect((await f.c.addSource(f.pid, noSecret)).status).toBe(400);
      expect((await f.c.addSource(f.pid, body({ bucket: "" }))).status).toBe(400);
      expect((await f.c.addSource(f.pid, { type: "text", content: "x", bucket: "b" })).status).toBe(400);
      expect((await f.c.addSource(f.pid, body({ path: "/srv" }))).status).toBe(400);
    });
  });

  describe("a prefix synced three times", () => {
    let source: SourceJson;

    test("first sync: each object under the prefix a document; the keys never shown", async () => {
      await put("docs/alpha.md", prose("alpha"));
      await put("docs/beta.txt", prose("beta"));
      await put("docs/sub/gamma.md", prose("gamma"));
      await put("docs/sub/", "");
      await put("docs/huge.txt", "x".repeat(1024 * 1024 + 1));
      await put("elsewhere/outside.md", prose("outside"));
      const r = await f.c.addSource(f.pid, body({ prefix: "docs", maxFileMb: 1, refreshEvery: "1h" }));
      expect(r.status).toBe(201);
      source = await synced(r.body.id);
      expect(source.s3).toEqual({
        endpoint: store.endpoint,
        bucket: store.bucket,
        prefix: "docs/",
        region: "us-east-1",
        pathStyle: true,
        include: [],
        exclude: [],
        maxFileMb: 1,
      });
      expect(reportOf(source)).toMatchObject({ added: 3, changed: 0, deleted: 0, unchanged: 0, failed: 1 });
      expect(reportOf(source).failures).toEqual([{ path: "huge.txt", reason: "larger than 1 MB" }]);
      const objects = await objectsOf(source.id);
      expect([...objects.keys()].sort()).toEqual(["alpha.md", "beta.txt", "sub/gamma.md"]);
      const gamma = objects.get("sub/gamma.md")!;
      expect(gamma.type).toBe("file");
      expect(gamma.metadata).toMatchObject({ path: "sub/gamma.md", extension: "md", size: prose("gamma").length });
      const m = gamma.metadata as { etag: unknown; modifiedAt: unknown };
      expect(m.etag).toMatch(/^[0-9a-f]{32}$/);
      expect(typeof m.modifiedAt).toBe("string");
      const { text, dupes } = await index();
      expect(text).toContain("alpha notes");
      expect(text).not.toContain("outside notes");
      expect(dupes).toEqual(NO_DUPLICATES);
      // Neither key in any answer: the create, one source, the list.
      const answers = [
        r.text,
        JSON.stringify(await f.c.source(f.pid, source.id)),
        JSON.stringify(await f.c.sources(f.pid)),
      ];
      for (const a of answers) {
        expect(a).not.toContain(store.secretAccessKey!);
        expect(a).not.toContain(store.accessKeyId!);
      }
    });

    test("second sync: added, changed and deleted objects; only new bytes embedded", async () => {
      const before = await objectsOf(source.id);
      await remove("docs/alpha.md");
      await put("docs/beta.txt", prose("delta"));
      await put("docs/epsilon.md", prose("epsilon"));
      const inputs = f.fake.stats().inputs;
      expect((await refetch(source.id)).status).toBe(202);
      source = await synced(source.id, reportOf(source).finishedAt);
      expect(reportOf(source)).toMatchObject({ added: 1, changed: 1, deleted: 1, unchanged: 1, failed: 1 });
      const objects = await objectsOf(source.id);
      expect([...objects.keys()].sort()).toEqual(["beta.txt", "epsilon.md", "sub/gamma.md"]);
      expect(objects.get("beta.txt")!.id).toBe(before.get("beta.txt")!.id);
      const embedded = f.fake.stats().inputs - inputs;
      const changedChunks = objects.get("beta.txt")!.chunkCount + objects.get("epsilon.md")!.chunkCount;
      expect(embedded).toBe(changedChunks);
      const { text, dupes, rows } = await index();
      expect(text).toContain("delta notes");
      expect(text).not.toContain("beta notes");
      expect(text).not.toContain("alpha notes");
      expect(dupes).toEqual(NO_DUPLICATES);
      expect(rows).toBe([...objects.values()].reduce((n, s) => n + s.chunkCount, 0));
    });

    test("third sync, on the schedule: nothing changed, nothing embedded", async () => {
      const before = await objectsOf(source.id);
      const inputs = f.fake.stats().inputs;
      await f.t.services.db.atomically((tx) =>
        tx.run(
          sql`UPDATE source_fetches SET next_check_at = '2000-01-01T00:00:00.000Z' WHERE document_id = ${source.id}`,
        ),
      );
      expect(await f.t.services.refresh.tick()).toBe(1);
      source = await synced(source.id, reportOf(source).finishedAt);
      expect(reportOf(source)).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 3, failed: 1 });
      expect(f.fake.stats().inputs - inputs).toBe(0);
      const objects = await objectsOf(source.id);
      expect(objects.get("beta.txt")!.indexedAt).toBe(before.get("beta.txt")!.indexedAt);
      expect((await index()).dupes).toEqual(NO_DUPLICATES);
    });

    test("keys the store refuses: the sync fails in one sentence and deletes nothing", async () => {
      const held = await objectsOf(source.id);
      const wrong = JSON.stringify({ accessKeyId: store.accessKeyId, secretAccessKey: "not-the-secret" });
      const setKeys = (keys: string) =>
        f.t.services.db.atomically((tx) =>
          tx.run(sql`UPDATE documents SET url_credentials = ${keys} WHERE id = ${source.id}`),
        );
      await setKeys(wrong);
      try {
        const failed = await failedSync(source.id);
        expect(failed.error).toContain("refused the source's keys (403)");
        expect(failed.error).toContain("nothing was deleted");
        expect(failed.error).not.toContain("X-Amz");
        expect(failed.error).not.toContain(store.accessKeyId!);
        expect([...(await objectsOf(source.id)).keys()].sort()).toEqual([...held.keys()].sort());
        expect((await index()).text).toContain("delta notes");
      } finally {
        await setKeys(JSON.stringify({ accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey }));
      }
      // With the right keys again the next sync finds everything unchanged.
      const last = reportOf(source).finishedAt;
      expect((await refetch(source.id)).status).toBe(202);
      source = await synced(source.id, last);
      expect(reportOf(source)).toMatchObject({ added: 0, deleted: 0, unchanged: 3 });
    });

    test("deleting the bucket source deletes its objects' documents, and nothing in the bucket", async () => {
      const r = await f.c.call("DELETE", `/api/rag/pipelines/${f.pid}/sources/${source.id}`);
      expect(r.status).toBe(200);
      expect((await objectsOf(source.id)).size).toBe(0);
      const still = await fetch(presignUrl(store, { method: "GET", key: "docs/beta.txt", expiresInS: 60 }));
      expect(await still.text()).toContain("delta notes");
    });
  });

  test("the listing is paged: an object on the second page of 1,000 keys is found", async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `paged/a-${String(i).padStart(4, "0")}.txt`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => put(k, "x")));
    await put("paged/z-last.md", prose("last page"));
    const r = await f.c.addSource(f.pid, body({ prefix: "paged/", exclude: ["a-*"] }));
    expect(r.status).toBe(201);
    const source = await synced(r.body.id);
    expect(reportOf(source)).toMatchObject({ added: 1, failed: 0 });
    expect([...(await objectsOf(source.id)).keys()]).toEqual(["z-last.md"]);
  }, 120_000);

  test("a store nobody answers at: the sync fails, naming the bucket", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const r = await f.c.addSource(f.pid, body({ endpoint: `http://127.0.0.1:${port}` }));
    expect(r.status).toBe(201);
    const failed = await waitFor("the sync to fail", async () => {
      const s = await f.c.source(f.pid, r.body.id);
      return s?.status === "failed" ? s : undefined;
    });
    expect(failed.error).toContain(`the bucket ${store.bucket} at http://127.0.0.1:${port} cannot be reached`);
    expect(failed.error).not.toContain("X-Amz");
  });
});
