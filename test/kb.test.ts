import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeApp, type TestApp } from "./support/app";
import { waitFor } from "./support/wait";

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await makeApp({ maxUploadMb: 1 });
  cookie = await t.signup();
});
afterAll(() => t.close());

/** POSTs a multipart upload the way curl -F does. */
async function upload(kbId: string, parts: Record<string, Blob | string>, c = cookie) {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts))
    if (typeof v === "string") form.append(k, v);
    else form.append(k, v, v instanceof File ? v.name : undefined);
  const res = await t.handle(
    new Request(`http://localhost/api/kb/${kbId}/upload`, { method: "POST", body: form, headers: { cookie: c } }),
  );
  return { status: res.status, body: await res.json() };
}

const file = (name: string, text: string | Uint8Array, type = "text/plain") =>
  new File([text as BlobPart], name, { type });

describe("knowledge bases", () => {
  let kbId: string;

  test("create: 201, description null when omitted, created_at in ISO 8601", async () => {
    const r = await t.call("POST", "/api/kb", { cookie, body: { name: "Handbook" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "Handbook", description: null, documentCount: 0 });
    expect(new Date(r.body.created_at).toISOString()).toBe(r.body.created_at);
    kbId = r.body.id;
    const d = await t.call("POST", "/api/kb", { cookie, body: { name: "Described", description: "with text" } });
    expect(d.body.description).toBe("with text");
  });

  test("create validates the name", async () => {
    for (const body of [{}, { name: "" }, { name: 5 }, { name: "x".repeat(201) }, { name: "ok", description: 3 }]) {
      expect((await t.call("POST", "/api/kb", { cookie, body })).status).toBe(400);
    }
  });

  test("upload → 202 queued → ready; list shows documentCount; search finds it", async () => {
    const r = await upload(kbId, {
      file: file("espresso.md", "# Kitchen\n\nThe espresso machine is descaled every Friday by facilities."),
    });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body)).toEqual(["document"]);
    expect(r.body.document).toMatchObject({ kbId, fileName: "espresso.md", status: "queued", error: null });
    await waitFor(
      "the document to be ready",
      async () => (await t.call("GET", `/api/kb/${kbId}`, { cookie })).body.documents[0].status === "ready",
    );
    const detail = await t.call("GET", `/api/kb/${kbId}`, { cookie });
    expect(detail.body.documents[0].chunkCount).toBeGreaterThan(0);
    const list = await t.call("GET", "/api/kb", { cookie });
    expect(list.body.find((k: { id: string }) => k.id === kbId).documentCount).toBe(1);
    const s = await t.call("POST", `/api/kb/${kbId}/search`, {
      cookie,
      body: { query: "when is the espresso machine descaled", topK: 3 },
    });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ kbId, query: "when is the espresso machine descaled", topK: 3 });
    expect(s.body.results[0].content).toContain("descaled every Friday");
    expect(s.body.results[0].metadata).toMatchObject({ sourceName: "espresso.md", chunkIndex: 0 });
  });

  test("bad uploads get their contract errors and leave nothing behind", async () => {
    const before = readdirSync(join(t.dataDir, "files", kbId)).length;
    const missing = await upload(kbId, { other: file("a.txt", "hello") });
    expect([missing.status, missing.body.error.code]).toEqual([400, "invalid_request"]);
    const empty = await upload(kbId, { file: file("empty.txt", "") });
    expect([empty.status, empty.body.error.code]).toEqual([400, "invalid_request"]);
    const big = await upload(kbId, { file: file("big.txt", "x".repeat(1024 * 1024 + 10)) });
    expect([big.status, big.body.error.code]).toEqual([413, "payload_too_large"]);
    // PNG, JPEG, TIFF and WebP are read by OCR; a GIF is not.
    const gif = await upload(kbId, {
      file: file("pic.gif", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 2, 3]), "image/gif"),
    });
    expect([gif.status, gif.body.error.code]).toEqual([415, "unsupported_media_type"]);
    expect(gif.body.error.message).toContain("image/gif");
    const json = await t.call("POST", `/api/kb/${kbId}/upload`, { cookie, body: { file: "x" } });
    expect([json.status, json.body.error.code]).toEqual([415, "unsupported_media_type"]);
    expect(readdirSync(join(t.dataDir, "files", kbId)).length).toBe(before);
    expect(readdirSync(join(t.dataDir, "files", ".tmp"))).toEqual([]);
    expect((await t.call("GET", `/api/kb/${kbId}`, { cookie })).body.documents).toHaveLength(1);
  });

  test("another user sees none of it (404)", async () => {
    const other = await t.signup();
    expect((await t.call("GET", "/api/kb", { cookie: other })).body).toEqual([]);
    expect((await t.call("GET", `/api/kb/${kbId}`, { cookie: other })).status).toBe(404);
    expect((await upload(kbId, { file: file("x.txt", "hello") }, other)).status).toBe(404);
    expect(
      (await t.call("POST", `/api/kb/${kbId}/search`, { cookie: other, body: { query: "espresso" } })).status,
    ).toBe(404);
    expect((await t.call("DELETE", `/api/kb/${kbId}`, { cookie: other })).status).toBe(404);
  });

  test("needs a session", async () => {
    expect((await t.call("GET", "/api/kb")).status).toBe(401);
  });

  test("delete a document, then the knowledge base: rows, chunks and files go", async () => {
    const r = await upload(kbId, { file: file("notes.txt", "Parking permits are renewed in March.") });
    await waitFor("every document to be ready", async () =>
      (await t.call("GET", `/api/kb/${kbId}`, { cookie })).body.documents.every(
        (d: { status: string }) => d.status === "ready",
      ),
    );
    const doc = r.body.document;
    const del = await t.call("DELETE", `/api/kb/${kbId}/documents/${doc.id}`, { cookie });
    expect(del.body).toEqual({ deleted: true, id: doc.id });
    expect(existsSync(join(t.dataDir, "files", kbId, doc.id))).toBe(false);
    const s = await t.call("POST", `/api/kb/${kbId}/search`, {
      cookie,
      body: { query: "parking permits", mode: "keyword" },
    });
    expect(s.body.results.map((x: { content: string }) => x.content).join(" ")).not.toContain("Parking");
    const gone = await t.call("DELETE", `/api/kb/${kbId}`, { cookie });
    expect(gone.status).toBe(200);
    expect((await t.call("GET", `/api/kb/${kbId}`, { cookie })).status).toBe(404);
    expect(existsSync(join(t.dataDir, "files", kbId))).toBe(false);
    expect((await t.services.vectorStore.listTables()).filter((x) => x.collectionId === kbId)).toEqual([]);
  });
});

describe("knowledge-base metadata", () => {
  test("an upload's metadata part labels the document; search takes filter.metadata", async () => {
    const kb = (await t.call("POST", "/api/kb", { cookie, body: { name: "Labelled" } })).body.id;
    // The metadata part may come after the file.
    const hr = await upload(kb, {
      file: file("leave.txt", "Annual leave requests go to the office."),
      metadata: '{"team":"hr","year":2024}',
    });
    expect(hr.status).toBe(202);
    expect(hr.body.document.metadata).toEqual({ team: "hr", year: 2024 });
    const form = new FormData();
    form.append("metadata", JSON.stringify({ team: "eng" }));
    form.append("file", file("deploy.txt", "Deploy requests go to the office on Monday."), "deploy.txt");
    const eng = await t.handle(
      new Request(`http://localhost/api/kb/${kb}/upload`, { method: "POST", body: form, headers: { cookie } }),
    );
    expect(eng.status).toBe(202);
    await waitFor("both documents to be ready", async () =>
      (await t.call("GET", `/api/kb/${kb}`, { cookie })).body.documents.every(
        (d: { status: string }) => d.status === "ready",
      ),
    );
    for (const [team, name] of [
      ["hr", "leave.txt"],
      ["eng", "deploy.txt"],
    ]) {
      const s = await t.call("POST", `/api/kb/${kb}/search`, {
        cookie,
        body: { query: "requests go to the office", mode: "keyword", filter: { metadata: { team } } },
      });
      expect(s.status).toBe(200);
      expect(s.body.results.map((r: { metadata: { sourceName: string } }) => r.metadata.sourceName)).toEqual([name]);
      expect(s.body.results[0].metadata.team).toBe(team);
    }
    const bad = await t.call("POST", `/api/kb/${kb}/search`, {
      cookie,
      body: { query: "office", filter: { metadata: { year: { $gt: "x", $foo: 1 } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("filter.metadata.year.$foo");
  });

  test("a bad metadata part is 400 naming it and stores nothing", async () => {
    const kb = (await t.call("POST", "/api/kb", { cookie, body: { name: "Strict" } })).body.id;
    for (const [metadata, field] of [
      ["{not json", "metadata"],
      ['{"sourceName":"x"}', "metadata.sourceName"],
      ["[1]", "metadata"],
    ]) {
      const r = await upload(kb, { metadata: metadata!, file: file("a.txt", "hello there") });
      expect(r.status).toBe(400);
      expect(r.body.error.message.startsWith(`${field}:`)).toBe(true);
    }
    expect((await t.call("GET", `/api/kb/${kb}`, { cookie })).body.documents).toEqual([]);
    expect(existsSync(join(t.dataDir, "files", kb)) ? readdirSync(join(t.dataDir, "files", kb)) : []).toEqual([]);
  });
});
