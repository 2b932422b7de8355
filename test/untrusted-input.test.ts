/**
 * Input ragd does not control, end to end over `app.handle` with the real engine: JSON
 * nested too deep (bodies, uploaded files, api sources) and text in encodings that are
 * not declared (uploads and fetched pages from a loopback server). docs/API.md, Limits
 * and Data sources.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { extract } from "../src/ingest/extract";
import { describe as describeFailure } from "../src/ingest/run/job";
import { outcomeOf } from "../src/ingest/tasks/outcome";
import { IngestStats } from "../src/ingest/tasks/stats";
import { createLogger } from "../src/log";
import { Client, makeDocx } from "./support/ingest";

let t: TestApp;
let c: Client;
let site: ReturnType<typeof Bun.serve>;
let pipelineId: string;

const deepArrays = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;
const latin1 = (s: string) => Uint8Array.from([...s].map((ch) => ch.charCodeAt(0)));

/** What the loopback site serves: path → [bytes, content type]. */
const PAGES: Record<string, [Uint8Array<ArrayBuffer> | string, string]> = {
  "/deep.json": [deepArrays(200_000), "application/json"],
  "/latin1.txt": [latin1("Caf\xe9 cr\xe8me at the corner"), "text/plain"],
  "/latin1.html": [
    latin1("<html><head><title>Menu</title></head><body><p>Caf\xe9 cr\xe8me and a croissant</p></body></html>"),
    "text/html",
  ],
};

beforeAll(async () => {
  t = await makeApp({ fetchAllow: ["127.0.0.1"], workers: 1 });
  c = await Client.create(t);
  pipelineId = await c.pipeline();
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const page = PAGES[new URL(req.url).pathname];
      if (!page) return new Response("no", { status: 404 });
      return new Response(page[0], { headers: { "content-type": page[1] } });
    },
  });
});
afterAll(async () => {
  site.stop(true);
  await t.close();
});

describe("JSON nested too deep", () => {
  const TOO_DEEP = "the request body is JSON nested deeper than 1,000 levels";
  const bodies: [string, () => string, number, string?][] = [
    ["a name nested 200,000 levels deep", () => `{"name":${deepArrays(200_000)}}`, 400, TOO_DEEP],
    [
      "a name 999 levels deep (a wrong type, not too deep)",
      () => `{"name":${deepArrays(999)}}`,
      400,
      "name: must be 1 to 200 characters, not counting whitespace around it",
    ],
    ["an unknown field nested 200,000 levels deep", () => `{"name":"x","extra":${deepArrays(200_000)}}`, 400, TOO_DEEP],
    [
      "objects 1,001 levels deep",
      () => `{"name":"x","extra":${'{"a":'.repeat(1000)}1${"}".repeat(1000)}}`,
      400,
      TOO_DEEP,
    ],
    ["an unknown field 999 levels deep (1,000 with the body)", () => `{"name":"x","extra":${deepArrays(999)}}`, 201],
    ["brackets inside a string", () => JSON.stringify({ name: "x", description: "[".repeat(5000) }), 201],
  ];
  for (const [label, body, status, message] of bodies) {
    test(`a request body with ${label} answers ${status}`, async () => {
      const r = await c.call("POST", "/api/rag/pipelines", body());
      expect(r.status).toBe(status);
      if (message) expect([r.body.error.code, r.body.error.message]).toEqual(["invalid_request", message]);
    });
  }

  test("an uploaded file and an api source nested 200,000 levels deep fail with a sentence; the worker goes on", async () => {
    const { created, put } = await c.upload(pipelineId, "deep.json", new TextEncoder().encode(deepArrays(200_000)));
    expect(put.status).toBe(200);
    const api = await c.addSource(pipelineId, { type: "api", url: `http://127.0.0.1:${site.port}/deep.json` });
    expect(api.status).toBe(201);
    for (const id of [created.id, api.body.id]) {
      const s = await c.settled(pipelineId, id);
      expect([s.status, s.error]).toEqual(["failed", "JSON nested deeper than 1,000 levels"]);
    }
    const after = await c.addText(pipelineId, "the worker still ingests after deep json");
    expect((await c.settled(pipelineId, after.id)).status).toBe("ready");
  });
});

describe("files a parser refuses", () => {
  // An entity the document never declares: the XML reader's own complaint is
  // `[xmldom error]\tentity not found:&lol9;\n@#[line:undefined,col:undefined]`.
  const ENTITY_XML = `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`;
  const cases: [string, () => Promise<Uint8Array>, string][] = [
    [
      "entities.docx",
      () => makeDocx([], { "word/document.xml": ENTITY_XML }),
      "could not read the DOCX file: its XML is malformed or uses entities ragd does not expand",
    ],
    [
      "broken.json",
      async () => new TextEncoder().encode('{"a": nope}'),
      "could not read the JSON: it is neither valid JSON nor JSON Lines",
    ],
    [
      // pdf.js refuses these bytes before its loading promise is awaited: unhandled, that ended the worker.
      "broken.pdf",
      async () => new TextEncoder().encode("%PDF-1.7\nthis is not a PDF body\n"),
      "could not read the PDF file: it is damaged or is not a PDF file",
    ],
  ];
  test("fail with one sentence per format, never the parser's own words", async () => {
    const pid = await c.pipeline({ name: "refused by a parser" });
    const ids: string[] = [];
    for (const [name, bytes] of cases) {
      const { created, put } = await c.upload(pid, name, await bytes());
      expect(put.status).toBe(200);
      ids.push(created.id);
    }
    const settled = await Promise.all(ids.map((id) => c.settled(pid, id)));
    expect(settled.map((s) => [s.name, s.status, s.error])).toEqual(cases.map(([n, , e]) => [n, "failed", e]));
    for (const s of settled) expect(s.error).not.toMatch(/xmldom|@#|[\t\n]|Parse error|Invalid PDF/);
  });

  test("the parser's own words go to the source's log line, not to its error", async () => {
    const err = await extract(await makeDocx([], { "word/document.xml": ENTITY_XML }), { fileName: "e.docx" }).then(
      () => null,
      (e: unknown) => e,
    );
    const lines: string[] = [];
    const outcome = outcomeOf({ type: "error", jobId: "j", ...describeFailure(err) });
    const stats = new IngestStats(createLogger("info", (l) => lines.push(l)));
    stats.record({ sourceId: "s", collectionId: "c", type: "file", result: "failed", outcome, stages: {}, seconds: 0 });
    const line = JSON.parse(lines[0]!);
    expect(line.error).toBe(cases[0]![2]);
    expect(line.detail).toContain("entity not found:&lol9;");
  });
});

describe("text without a declared charset", () => {
  test("a Latin-1 upload and Latin-1 pages served without charset come out as Café crème", async () => {
    const pid = await c.pipeline({ name: "encodings" });
    const upload = await c.upload(pid, "menu.txt", latin1("Caf\xe9 cr\xe8me in the upload"));
    expect(upload.put.status).toBe(200);
    const pages = ["/latin1.txt", "/latin1.html"].map((p) => `http://127.0.0.1:${site.port}${p}`);
    for (const url of pages) expect((await c.addSource(pid, { type: "url", url })).status).toBe(201);
    const settled = await c.allSettled(pid);
    expect(settled.map((s) => [s.name, s.status, s.error])).toEqual([
      ["menu.txt", "ready", null],
      [pages[0], "ready", null],
      [pages[1], "ready", null],
    ]);
    const key = await c.key(pid);
    const r = await c.query(key, { query: "crème", mode: "keyword", topK: 10 });
    const found = r.body.results.map((x: { content: string }) => x.content).sort();
    expect(found).toEqual([
      "Caf\u00e9 cr\u00e8me and a croissant",
      "Caf\u00e9 cr\u00e8me at the corner",
      "Caf\u00e9 cr\u00e8me in the upload",
    ]);
  });
});
