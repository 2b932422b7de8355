/**
 * The key-authenticated documents API (docs/API.md, Documents API), through
 * app.handle on a real data directory, with the fake Ollama counting what is embedded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DocumentsFixture } from "./support/documents";
import type { FakeOllama } from "./support/fake-ollama";
import type { Reply, TestApp } from "./support/app";
import type { Client } from "./support/ingest";

const f = new DocumentsFixture();
const { keyFor, auth, put, get, settled, contents } = f;
let fake: FakeOllama;
let t: TestApp;
let c: Client;

beforeAll(async () => {
  await f.open({});
  ({ fake, t, c } = f);
});
afterAll(() => f.close());
const sql = <T>(q: string, ...args: string[]) => t.services.db.reader.$client.query(q).all(...args) as T[];

describe("upsert lifecycle, checked through queries", () => {
  test("create → unchanged → metadata only → changed → delete", async () => {
    const created = await put("wiki/4711", {
      type: "text",
      content: "Alpha version of the handbook.",
      metadata: { team: "hr" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ externalId: "wiki/4711", status: "created", unchanged: false });
    expect(created.body.source).toMatchObject({ externalId: "wiki/4711", metadata: { team: "hr" }, type: "text" });
    expect((await settled("wiki/4711")).chunkCount).toBe(1);
    expect(await contents()).toContain("Alpha version of the handbook.");
    const hash = sql<{ content_hash: string }>("SELECT content_hash FROM documents WHERE external_id = ?", "wiki/4711");
    expect(hash[0]!.content_hash).toBe(
      new Bun.CryptoHasher("sha256").update("Alpha version of the handbook.").digest("hex"),
    );

    const before = fake.stats().inputs;
    const same = await put("wiki/4711", {
      type: "text",
      content: "Alpha version of the handbook.",
      metadata: { team: "hr" },
    });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ status: "unchanged", unchanged: true, metadataChanged: false });
    expect(same.body.source.status).toBe("ready");

    const relabelled = await put("wiki/4711", {
      type: "text",
      name: "Handbook",
      content: "Alpha version of the handbook.",
      metadata: { team: "ops" },
    });
    expect(relabelled.status).toBe(200);
    expect(relabelled.body).toMatchObject({ status: "unchanged", unchanged: true, metadataChanged: true });
    expect((await get("wiki/4711")).body).toMatchObject({
      name: "Handbook",
      metadata: { team: "ops" },
      status: "ready",
    });
    await Bun.sleep(300); // a queued task would have started by now
    expect(fake.stats().inputs).toBe(before);
    expect(sql("SELECT id FROM tasks WHERE status IN ('queued','processing')")).toEqual([]);

    const changed = await put("wiki/4711", { type: "text", content: "Beta version of the handbook." });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ status: "replaced", unchanged: false });
    // Metadata left out of a replace is kept.
    expect(changed.body.source.metadata).toEqual({ team: "ops" });
    await settled("wiki/4711");
    expect(fake.stats().inputs).toBeGreaterThan(before);
    const now = await contents();
    expect(now).toContain("Beta version of the handbook.");
    expect(now).not.toContain("Alpha version of the handbook.");

    const del = await t.call("DELETE", "/api/rag/documents/wiki%2F4711", { headers: auth() });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ deleted: true, externalId: "wiki/4711" });
    expect((await get("wiki/4711")).status).toBe(404);
    expect(await contents()).not.toContain("Beta version of the handbook.");
  });

  test("a file's name arrives as UTF-8, without control characters, never blank", async () => {
    const send = (id: string, fileName: string) => {
      const form = new FormData();
      form.append("file", new File(["Named file body."], fileName, { type: "text/plain" }));
      return t.handle(
        new Request(`http://localhost/api/rag/documents/${id}`, { method: "PUT", headers: auth(), body: form }),
      );
    };
    for (const [id, sent, kept] of [
      ["named-1", "Café 東京 📄.txt", "Café 東京 📄.txt"],
      ["named-2", "tab\there.txt", "tab here.txt"],
      ["named-3", "     ", "upload"],
    ] as const) {
      const r = await send(id, sent);
      expect(r.status).toBe(201);
      const body = (await r.json()) as { source: { fileName: string; name: string } };
      expect([body.source.fileName, body.source.name]).toEqual([kept, kept]);
    }
  });

  test("a file by multipart: same bytes are unchanged, new bytes replace, an unreadable type is 415", async () => {
    const send = (text: string, extra: Record<string, string> = {}, type = "text/plain", fileName = "notes.txt") => {
      const form = new FormData();
      form.append("file", new File([text], fileName, { type }));
      for (const [k, v] of Object.entries(extra)) form.append(k, v);
      return t.handle(
        new Request("http://localhost/api/rag/documents/file-1", { method: "PUT", headers: auth(), body: form }),
      );
    };
    const first = await send("Gamma file body.", { metadata: JSON.stringify({ lang: "en" }) });
    expect(first.status).toBe(201);
    const body = (await first.json()) as { source: { type: string; fileName: string; metadata: unknown } };
    expect(body.source).toMatchObject({ type: "file", fileName: "notes.txt", metadata: { lang: "en" } });
    await settled("file-1");
    const before = fake.stats().inputs;
    const again = await send("Gamma file body.");
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "unchanged", unchanged: true });
    expect(fake.stats().inputs).toBe(before);
    const changed = await send("Delta file body.");
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ status: "replaced" });
    await settled("file-1");
    const now = await contents();
    expect(now).toContain("Delta file body.");
    expect(now).not.toContain("Gamma file body.");
    const bad = await send("\u0000\u0001\u0002binary", {}, "application/octet-stream", "x.bin");
    expect(bad.status).toBe(415);
    const badMeta = await send("Epsilon.", { metadata: "{not json" });
    expect(badMeta.status).toBe(400);
    expect(((await badMeta.json()) as { error: { message: string } }).error.message).toContain("metadata");
  });
});

describe("bad input", () => {
  test.each([
    ["too long", "x".repeat(257), "externalId"],
    ["a control character", "a\u0001b", "externalId"],
    ["only spaces", "   ", "externalId"],
  ])("an external id with %s is 400 naming the field", async (_what, id, field) => {
    const r = await put(id, { type: "text", content: "hello" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.details[0].field).toBe(field);
    expect(sql("SELECT id FROM documents WHERE external_id = ?", id)).toEqual([]);
  });

  test("a multipart upload refuses a metadata part sent as a file, and keeps no file", async () => {
    const form = new FormData();
    form.append("file", new File(["Delta file body."], "delta.txt", { type: "text/plain" }));
    form.append("metadata", new File(['{"lang":"en"}'], "meta.json", { type: "application/json" }));
    const res = await t.handle(
      new Request("http://localhost/api/rag/documents/file-meta", { method: "PUT", headers: auth(), body: form }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.details).toEqual([
      { field: "metadata", message: "must be a JSON object in a plain form field, not a file" },
    ]);
    expect(readdirSync(join(t.dataDir, "files", ".tmp"))).toEqual([]);
    expect((await get("file-meta")).status).toBe(404);
  });

  test("a body that is neither JSON nor multipart is 415", async () => {
    const r = await t.call("PUT", "/api/rag/documents/plain", {
      headers: { ...auth(), "content-type": "text/plain" },
      body: "just text",
    });
    expect([r.status, r.body.error.code]).toEqual([415, "unsupported_media_type"]);
  });

  test.each([
    [{ type: "file", content: "x" }, "type"],
    [{ type: "text" }, "content"],
    [{ type: "text", content: "x", extra: 1 }, "extra"],
    [{ type: "url", url: "ftp://example.com/" }, "url"],
    [{ type: "text", content: "x", metadata: { sourceId: "no" } }, "metadata.sourceId"],
    [{ type: "text", content: "x", name: "   " }, "name"],
  ])("%j is 400 naming %s", async (body, field) => {
    const r = await put("bad-1", body);
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await get("bad-1")).status).toBe(404);
  });
});

describe("batch", () => {
  test("a result per item in order; valid items stored, refused ones leave nothing", async () => {
    const counts = () =>
      sql<{ d: number; x: number; k: number }>(
        "SELECT (SELECT count(*) FROM documents) d, (SELECT count(*) FROM document_texts) x, (SELECT count(*) FROM tasks) k",
      )[0]!;
    const start = counts();
    const r = await t.call("POST", "/api/rag/documents/batch", {
      headers: auth(),
      body: {
        documents: [
          { externalId: "b-1", type: "text", content: "Batch one." },
          { externalId: "b-2", type: "text" },
          { externalId: "b\u0000", type: "text", content: "bad id" },
          { externalId: "b-3", type: "text", content: "Batch three.", metadata: { n: 3 } },
          { externalId: "b-4", type: "text", content: "x", metadata: { url: "reserved" } },
          { externalId: "b-1", type: "text", content: "twice" },
          "not an object",
        ],
      },
    });
    expect(r.status).toBe(200);
    const results = r.body.results as {
      externalId: string | null;
      status: string;
      error?: { details?: { field: string }[] };
    }[];
    expect(results.map((x) => x.status)).toEqual(["created", "error", "error", "created", "error", "error", "error"]);
    expect(results.map((x) => x.externalId)).toEqual(["b-1", "b-2", "b\u0000", "b-3", "b-4", "b-1", null]);
    expect(results[1]!.error!.details![0]!.field).toBe("documents.1.content");
    expect(results[2]!.error!.details![0]!.field).toBe("documents.2.externalId");
    expect(results[4]!.error!.details![0]!.field).toBe("documents.4.metadata.url");
    const end = counts();
    expect(end.d - start.d).toBe(2);
    expect(end.x - start.x).toBe(2);
    expect(end.k - start.k).toBe(2);
    await settled("b-1");
    await settled("b-3");
    expect(await contents()).toEqual(expect.arrayContaining(["Batch one.", "Batch three."]));
    // Sent again: both unchanged, nothing queued.
    const again = await t.call("POST", "/api/rag/documents/batch", {
      headers: auth(),
      body: {
        documents: [
          { externalId: "b-1", type: "text", content: "Batch one." },
          { externalId: "b-3", type: "text", content: "Batch three.", metadata: { n: 3 } },
        ],
      },
    });
    expect(again.body.results.map((x: { status: string }) => x.status)).toEqual(["unchanged", "unchanged"]);
    expect(counts().k).toBe(end.k);
  });

  test("sent again, each item gets what a single upsert gives it; an untouched text writes nothing", async () => {
    const base = [
      { externalId: "r-same", type: "text", content: "Stays as it is.", metadata: { k: 1 } },
      { externalId: "r-label", type: "text", content: "Gets a new label." },
      { externalId: "r-name", type: "text", content: "Gets a new name.", name: "old name" },
      { externalId: "r-text", type: "text", content: "First wording." },
      { externalId: "r-failed", type: "text", content: "Failed once." },
    ];
    await t.call("POST", "/api/rag/documents/batch", { headers: auth(), body: { documents: base } });
    for (const d of base) await settled(d.externalId);
    // A document whose indexing failed is indexed again, even with the same content.
    await t.services.db.atomically((tx) =>
      tx.$client.query("UPDATE documents SET status = 'failed' WHERE external_id = 'r-failed'").run(),
    );
    const stamp = () =>
      sql<{ updated_at: string }>("SELECT updated_at FROM documents WHERE external_id = 'r-same'")[0]!.updated_at;
    const before = stamp();
    const inputs = fake.stats().inputs;
    await Bun.sleep(5);
    const r = await t.call("POST", "/api/rag/documents/batch", {
      headers: auth(),
      body: {
        documents: [
          base[0],
          { ...base[1], metadata: { team: "hr" } },
          { ...base[2], name: "new name" },
          { ...base[3], content: "Second wording." },
          base[4],
          { externalId: "r-new", type: "text", content: "A newcomer." },
        ],
      },
    });
    expect(r.status).toBe(200);
    const results = r.body.results as { externalId: string; status: string; metadataChanged: boolean }[];
    expect(results.map((x) => [x.externalId, x.status, x.metadataChanged])).toEqual([
      ["r-same", "unchanged", false],
      ["r-label", "unchanged", true],
      ["r-name", "unchanged", true],
      ["r-text", "replaced", false],
      ["r-failed", "replaced", false],
      ["r-new", "created", false],
    ]);
    expect(r.body.results[0].source).toMatchObject({ externalId: "r-same", status: "ready", metadata: { k: 1 } });
    expect(stamp()).toBe(before);
    expect((await get("r-label")).body.metadata).toEqual({ team: "hr" });
    expect((await get("r-name")).body.name).toBe("new name");
    for (const id of ["r-text", "r-failed", "r-new"]) await settled(id);
    expect(await contents()).toEqual(expect.arrayContaining(["Second wording.", "Failed once.", "A newcomer."]));
    expect(await contents()).not.toContain("First wording.");
    // Three texts embedded again; the untouched and relabelled ones not.
    expect(fake.stats().inputs - inputs).toBe(3);
  });

  test("more than 1,000 items is 400 and stores nothing", async () => {
    const documents = Array.from({ length: 1001 }, (_, i) => ({ externalId: `over-${i}`, type: "text", content: "x" }));
    const r = await t.call("POST", "/api/rag/documents/batch", { headers: auth(), body: { documents } });
    expect(r.status).toBe(400);
    expect(sql("SELECT id FROM documents WHERE external_id LIKE 'over-%'")).toEqual([]);
  });
});

describe("listing", () => {
  test("pages with status and updatedSince", async () => {
    const p2 = await c.pipeline({ name: "list", chunkSize: 100, chunkOverlap: 0 });
    const k2 = await keyFor(p2, ["ingest"]);
    const docs = Array.from({ length: 5 }, (_, i) => ({
      externalId: `l-${i}`,
      type: "text",
      content: `List item ${i}.`,
    }));
    await t.call("POST", "/api/rag/documents/batch", { headers: auth(k2), body: { documents: docs } });
    for (const d of docs) await settled(d.externalId, k2);
    const list = (q: string) => t.call("GET", `/api/rag/documents?${q}`, { headers: auth(k2) });
    const page1 = await list("pageSize=2");
    expect(page1.body).toMatchObject({ page: 1, pageSize: 2, total: 5 });
    expect(page1.body.documents).toHaveLength(2);
    const page3 = await list("pageSize=2&page=3");
    expect(page3.body.documents).toHaveLength(1);
    expect((await list("status=failed")).body.total).toBe(0);
    expect((await list("status=ready")).body.total).toBe(5);
    const mark = new Date().toISOString();
    await Bun.sleep(5);
    await put("l-2", { type: "text", content: "List item 2, edited." }, k2);
    const since: Reply = await list(`updatedSince=${encodeURIComponent(mark)}`);
    expect(since.body.documents.map((d: { externalId: string }) => d.externalId)).toEqual(["l-2"]);
    expect((await list("updatedSince=yesterday")).status).toBe(400);
    // 2025-02-30 would otherwise be read as 2 March 2025 and skip two days of changes.
    const impossible = await list(`updatedSince=${encodeURIComponent("2025-02-30T00:00:00Z")}`);
    expect(impossible.status).toBe(400);
    expect(impossible.body.error.details[0].field).toBe("updatedSince");
    expect((await list(`updatedSince=${encodeURIComponent("2024-02-29T00:00:00+01:00")}`)).body.total).toBe(5);
    expect((await list("status=nope")).status).toBe(400);
  });
});
