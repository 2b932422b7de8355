/**
 * OCR through the server (docs/API.md, "OCR"): an uploaded picture and a mixed PDF are
 * indexed through the ingestion worker and its OCR thread, found by a query, and their
 * sources say OCR read them and with which language data; a source of text says nothing
 * of OCR; a page past RAGD_OCR_PAGE_TIMEOUT_MS fails its source with a sentence.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";
import { makeScannedPdf, ocrImage } from "./support/ocr-text";

let t: TestApp;
let c: Client;
beforeAll(async () => {
  t = await makeApp();
  c = await Client.create(t);
});
afterAll(() => t.close());

test("a picture and a mixed PDF are indexed by OCR, found by a query, and their sources say so", async () => {
  const pid = await c.pipeline({ name: "Scans" });
  await c.upload(pid, "receipt.jpg", await ocrImage("jpg"));
  await c.upload(pid, "mixed.pdf", await makeScannedPdf(["Harbour permits renew every March.", "scan"]));
  await c.addText(pid, "Plain text about lighthouses.");
  const sources = await c.allSettled(pid, 120_000);
  const byName = Object.fromEntries(sources.map((s) => [s.name, s]));
  expect(sources.map((s) => [s.name, s.status, s.error]).sort()).toEqual([
    ["Plain text about lighthouses.", "ready", null],
    ["mixed.pdf", "ready", null],
    ["receipt.jpg", "ready", null],
  ]);
  expect(byName["receipt.jpg"]!.ocr).toEqual({ languages: ["eng"], pages: 1 });
  expect(byName["mixed.pdf"]!.ocr).toEqual({ languages: ["eng"], pages: 1 });
  expect("ocr" in byName["Plain text about lighthouses."]!).toBe(false);
  const key = await c.key(pid);
  const found = await c.query(key, { query: "Invoice 4821 paid March", mode: "keyword", topK: 5 });
  expect(found.status).toBe(200);
  const names = new Set(found.body.results.map((r: { metadata: { sourceName: string } }) => r.metadata.sourceName));
  expect([...names].sort()).toEqual(["mixed.pdf", "receipt.jpg"]);
}, 180_000);

test("a page past RAGD_OCR_PAGE_TIMEOUT_MS fails its source with a sentence, not a hang", async () => {
  const slow = await makeApp({ ocrPageTimeoutMs: 100 });
  try {
    const sc = await Client.create(slow);
    const pid = await sc.pipeline({ name: "Slow" });
    const { created } = await sc.upload(pid, "page.png", await ocrImage("png"));
    const done = await sc.settled(pid, created.id, 30_000);
    expect([done.status, done.error]).toEqual([
      "failed",
      "OCR of the image took longer than 100 ms and was stopped (RAGD_OCR_PAGE_TIMEOUT_MS)",
    ]);
    expect("ocr" in done).toBe(false);
  } finally {
    await slow.close();
  }
}, 60_000);

test("while OCR runs, a source's progress counts pages recognised (unit: pages)", async () => {
  const pid = await c.pipeline({ name: "Progress" });
  const { created } = await c.upload(pid, "three.pdf", await makeScannedPdf(["scan", "scan", "scan"]));
  const seen: unknown[] = [];
  const done = await waitFor(
    "the three-page scan to settle",
    async () => {
      const s = await c.source(pid, created.id);
      if (s?.status === "processing" && s.progress.total > 0) seen.push(s.progress);
      return s && (s.status === "ready" || s.status === "failed") ? s : null;
    },
    180_000,
    20,
  );
  expect([done.status, done.ocr, done.progress]).toEqual([
    "ready",
    { languages: ["eng"], pages: 3 },
    { done: done.chunkCount, total: done.chunkCount },
  ]);
  expect(seen).toContainEqual(expect.objectContaining({ total: 3, unit: "pages" }));
}, 200_000);

test("a picture uploaded into a knowledge base is read by OCR and its document says so", async () => {
  const cookie = c.cookie;
  const kbId = (await t.call("POST", "/api/kb", { cookie, body: { name: "Receipts" } })).body.id;
  const form = new FormData();
  form.append("file", new File([(await ocrImage("webp")) as Uint8Array<ArrayBuffer>], "receipt.webp"), "receipt.webp");
  const res = await t.handle(
    new Request(`http://localhost/api/kb/${kbId}/upload`, { method: "POST", body: form, headers: { cookie } }),
  );
  expect(res.status).toBe(202);
  const doc = await waitFor(
    "the document to settle",
    async () => {
      const [d] = (await t.call("GET", `/api/kb/${kbId}`, { cookie })).body.documents;
      return d.status === "ready" || d.status === "failed" ? d : null;
    },
    120_000,
  );
  expect([doc.status, doc.error, doc.ocr]).toEqual(["ready", null, { languages: ["eng"], pages: 1 }]);
}, 150_000);

test("a pipeline picks its OCR language data; a language without data is refused with 400", async () => {
  const refused = await c.call("POST", "/api/rag/pipelines", { name: "German", ocrLanguages: ["deu"] });
  expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([
    400,
    "invalid_request",
    'ocrLanguages: OCR language data "deu" is missing: place deu.traineddata in the data directory\'s ocr folder',
  ]);
  // The built-in English under another name stands in for a language the user adds.
  mkdirSync(join(t.dataDir, "ocr"), { recursive: true });
  const eng = gunzipSync(readFileSync(require.resolve("@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz")));
  writeFileSync(join(t.dataDir, "ocr", "mine.traineddata"), eng);
  const created = await c.call("POST", "/api/rag/pipelines", { name: "Mine", ocrLanguages: ["mine"] });
  expect([created.status, created.body.ocrLanguages]).toEqual([201, ["mine"]]);
  const { created: source } = await c.upload(created.body.id, "page.png", await ocrImage("png"));
  const done = await c.settled(created.body.id, source.id, 120_000);
  expect([done.status, done.ocr]).toEqual(["ready", { languages: ["mine"], pages: 1 }]);
  const reset = await c.call("PATCH", `/api/rag/pipelines/${created.body.id}`, { ocrLanguages: null });
  expect([reset.status, reset.body.ocrLanguages]).toEqual([200, null]);
  expect((await c.getPipeline(await c.pipeline({ name: "Default" }))).ocrLanguages).toBeNull();
}, 150_000);
