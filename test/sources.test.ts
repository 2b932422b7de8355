/**
 * Data sources end to end over HTTP: every source type, with documents the test
 * builds itself, ingested by the real engine (workers, SQLite, LanceDB) and found
 * again through the query endpoint; failures that a person can act on; retry;
 * zip bombs. The fake Ollama is the only stand-in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import JSZip from "jszip";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { bytesOf, Client, makeDocx, makePdf, waitFor, type SourceJson } from "./support/ingest";

let t: TestApp;
let c: Client;
let fake: FakeOllama;
let site: ReturnType<typeof Bun.serve>;

const LOREM =
  "Retrieval systems split long documents into chunks, embed each chunk and store the vectors. " +
  "A query is embedded the same way, and the nearest chunks are returned with their scores. ";

/** An HTML page whose article is long enough for Readability, wrapped in navigation chrome. */
function page(articleWord: string, chromeWords: { nav: string; header: string; footer: string }): string {
  const paragraphs = Array.from(
    { length: 6 },
    (_, i) => `<p>Paragraph ${i + 1} of the story about ${articleWord}. ${LOREM}</p>`,
  ).join("\n");
  return `<!doctype html><html><head><title>Story of ${articleWord}</title></head><body>
<header><div class="site-header">Welcome banner ${chromeWords.header}</div></header>
<nav><ul><li><a href="/a">Home ${chromeWords.nav}</a></li><li><a href="/b">About</a></li><li><a href="/c">Contact</a></li></ul></nav>
<main><article><h1>The ${articleWord} report</h1>
${paragraphs}
</article></main>
<footer><p>Copyright ${chromeWords.footer} all rights reserved</p></footer>
</body></html>`;
}

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ fetchAllow: ["127.0.0.1"], ollamaUrl: fake.url, workers: 2 });
  c = await Client.create(t);
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/article.html") {
        return new Response(
          page("quetzalfjord", { nav: "navigationzebra", header: "headerwombat", footer: "footerplatypus" }),
          {
            headers: { "content-type": "text/html; charset=utf-8" },
          },
        );
      }
      if (path === "/records") {
        // An api source: JSON records, labelled as plain text on purpose (api sources are JSON by contract).
        const records = [
          { sku: "A-1", gizmocolour: "vermilion", stock: 4 },
          { sku: "B-2", gizmocolour: "cerulean", stock: 9, supplier: { name: "Blorptastic Ltd" } },
        ];
        return new Response(JSON.stringify({ data: records, meta: { total: 2 } }), {
          headers: { "content-type": "text/plain" },
        });
      }
      return new Response("<h1>nothing here</h1>", { status: 404, headers: { "content-type": "text/html" } });
    },
  });
});

afterAll(async () => {
  site?.stop(true);
  await t?.close();
  await fake?.stop();
});

/** The sourceIds of keyword hits for `word`. */
async function keywordHits(key: string, word: string): Promise<string[]> {
  const r = await c.query(key, { query: word, mode: "keyword", topK: 10 });
  expect(r.status).toBe(200);
  return r.body.results.map((x: { metadata: { sourceId: string } }) => x.metadata.sourceId);
}

describe("every source type, end to end", () => {
  let pipelineId: string;
  let key: string;
  const added: SourceJson[] = [];

  beforeAll(async () => {
    pipelineId = await c.pipeline({ name: "All types", chunkSize: 400, chunkOverlap: 40 });
    key = await c.key(pipelineId);
  });

  test("a new pipeline is empty; a queued text source makes it processing, then ready", async () => {
    expect((await c.getPipeline(pipelineId)).status).toBe("empty");
    const created = await c.addSource(pipelineId, {
      type: "text",
      name: "Note",
      content: `The word blunderbussoon appears here. ${LOREM}`,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: "text",
      name: "Note",
      status: "queued",
      error: null,
      chunkCount: 0,
      pipelineId,
    });
    expect(["processing", "ready"]).toContain((await c.getPipeline(pipelineId)).status);
    const done = await c.settled(pipelineId, created.body.id);
    expect(done).toMatchObject({ status: "ready", error: null });
    expect(done.chunkCount).toBeGreaterThan(0);
    expect(done.progress).toEqual({ done: done.chunkCount, total: done.chunkCount });
    expect(done.indexedAt).toBeString();
    expect(await keywordHits(key, "blunderbussoon")).toEqual([done.id]);
    added.push(done);
  });

  const files: [string, string, () => Promise<Uint8Array> | Uint8Array, string][] = [
    [
      "a PDF made with pdf-lib",
      "paper.pdf",
      () =>
        makePdf(
          [
            `First page mentions the xylocarpus mangrove. ${"Some filler text. ".repeat(3)}`,
            "Second page talks about gravimetric sondes.",
          ],
          "Paper",
        ),
      "gravimetric",
    ],
    [
      "a DOCX made with jszip",
      "memo.docx",
      () => makeDocx(["Memo about the frangipane budget.", "A second paragraph on quarterly kumquats."]),
      "kumquats",
    ],
    [
      "a Markdown file",
      "guide.md",
      () =>
        bytesOf(`# Install guide\n\n## Step one\n\nDownload the **snorkelwick** package.\n\n## Step two\n\n${LOREM}`),
      "snorkelwick",
    ],
    [
      "a CSV file",
      "people.csv",
      () => bytesOf("name,favouritefruit,city\nAda,durian,London\nLinus,rambutan,Helsinki\n"),
      "rambutan",
    ],
    [
      "a CSV file, by a header name",
      "cities.csv",
      () => bytesOf("name,hometownzone\nGrace,Arlington\n"),
      "hometownzone",
    ],
    [
      "a JSON file, by a field name",
      "config.json",
      () => bytesOf(JSON.stringify({ service: "ragd", limits: { maxwidgetcount: 7 }, owners: ["ops"] })),
      "maxwidgetcount",
    ],
    ["a plain-text file", "notes.txt", () => bytesOf(`Plain notes. The quokka population grew. ${LOREM}`), "quokka"],
  ];

  test.each(files)("%s is extracted, chunked, embedded and searchable", async (_label, fileName, build, word) => {
    const bytes = await build();
    const { created, put } = await c.upload(pipelineId, fileName, bytes);
    expect(created).toMatchObject({ type: "file", status: "awaiting_upload", fileName, fileSize: bytes.byteLength });
    expect(created.uploadUrl).toContain(`/uploads/${created.id}?`);
    expect(Date.parse(created.uploadExpiresAt!)).toBeGreaterThan(Date.now());
    expect(put.status).toBe(200);
    expect(put.body.source).toMatchObject({ id: created.id, status: "queued" });
    const done = await c.settled(pipelineId, created.id);
    expect(done.error).toBeNull();
    expect(done.status).toBe("ready");
    expect(done.chunkCount).toBeGreaterThan(0);
    expect(await keywordHits(key, word)).toEqual([created.id]);
    added.push(done);
  });

  test("an HTML page: the article is searchable, its nav, header and footer are not", async () => {
    const html = page("ocelotgrammar", { nav: "navonlyword", header: "headeronlyword", footer: "footeronlyword" });
    const { created, put } = await c.upload(pipelineId, "story.html", bytesOf(html));
    expect(put.status).toBe(200);
    const done = await c.settled(pipelineId, created.id);
    expect(done.status).toBe("ready");
    expect(await keywordHits(key, "ocelotgrammar")).toContain(created.id);
    for (const chrome of ["navonlyword", "headeronlyword", "footeronlyword"])
      expect(await keywordHits(key, chrome)).toEqual([]);
    added.push(done);
  });

  test("a url source is fetched from a local server; the article is searchable and the nav is not", async () => {
    const url = `http://127.0.0.1:${site.port}/article.html`;
    const created = await c.addSource(pipelineId, { type: "url", url });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: "url", url, name: url, status: "queued" });
    const done = await c.settled(pipelineId, created.body.id);
    expect(done.error).toBeNull();
    expect(done.status).toBe("ready");
    const r = await c.query(key, { query: "quetzalfjord", mode: "keyword" });
    expect(r.body.results[0].metadata).toMatchObject({ sourceId: done.id, sourceType: "url", url });
    for (const chrome of ["navigationzebra", "headerwombat", "footerplatypus"])
      expect(await keywordHits(key, chrome)).toEqual([]);
    added.push(done);
  });

  test("an api source turns JSON records into text that keeps field names", async () => {
    const created = await c.addSource(pipelineId, {
      type: "api",
      url: `http://127.0.0.1:${site.port}/records`,
      name: "Inventory API",
    });
    expect(created.status).toBe(201);
    const done = await c.settled(pipelineId, created.body.id);
    expect(done.error).toBeNull();
    expect(done.status).toBe("ready");
    expect(await keywordHits(key, "gizmocolour")).toEqual([done.id]);
    expect(await keywordHits(key, "blorptastic")).toEqual([done.id]);
    const r = await c.query(key, { query: "cerulean", mode: "keyword" });
    expect(r.body.results[0].content).toContain("gizmocolour: cerulean");
    added.push(done);
  });

  test("the pipeline's status, sourceCount and chunkCount add up, and LanceDB holds exactly that many rows", async () => {
    const p = await c.getPipeline(pipelineId);
    const sources = await c.sources(pipelineId);
    expect(sources.map((s) => s.status)).toEqual(sources.map(() => "ready"));
    expect(sources).toHaveLength(added.length);
    expect(p.status).toBe("ready");
    expect(p.sourceCount).toBe(sources.length);
    const sum = sources.reduce((n, s) => n + s.chunkCount, 0);
    expect(p.chunkCount).toBe(sum);
    expect(p.dataSources.map((s: SourceJson) => s.id).sort()).toEqual(sources.map((s) => s.id).sort());
    expect(await t.services.vectorStore.countRows(pipelineId, 1)).toBe(sum);
    const perDoc = await t.services.vectorStore.documentCounts(pipelineId, 1);
    for (const s of sources) expect(perDoc.get(s.id)).toBe(s.chunkCount);
    expect(p.embeddingDimensions).toBe(484); // builtin-glove, the default model
  });
});

describe("progress while processing", () => {
  test("a long text through a slow Ollama reports progress as the model's batches come back, and the pipeline is processing until it is ready", async () => {
    const pid = await c.pipeline({
      name: "Slow",
      embeddingModel: "ollama/all-minilm",
      chunkSize: 100,
      chunkOverlap: 0,
    });
    await fake.set({ latencyMs: 150 });
    try {
      const text = Array.from({ length: 1200 }, (_, i) => `Sentence number ${i} is here.`).join(" ");
      const s = await c.addText(pid, text, "long");
      const busy = await waitFor("a count between 0 and the total", async () => {
        const cur = await c.source(pid, s.id);
        return cur && cur.status === "processing" && cur.progress.done > 0 && cur.progress.done < cur.progress.total
          ? cur
          : null;
      });
      expect(busy.progress.done).toBeLessThan(busy.progress.total);
      expect(busy.progress.total).toBeLessThanOrEqual(512); // one slice: the steps come from the model's batches
      expect((await c.getPipeline(pid)).status).toBe("processing");
      const done = await c.settled(pid, s.id);
      expect(done.status).toBe("ready");
      expect(done.chunkCount).toBe(busy.progress.total);
      expect(done.progress).toEqual({ done: done.chunkCount, total: done.chunkCount });
      const p = await c.getPipeline(pid);
      expect(p).toMatchObject({ status: "ready", chunkCount: done.chunkCount, embeddingDimensions: 384 });
    } finally {
      await fake.set({ latencyMs: 0 });
    }
  });
});

describe("failures say what to do", () => {
  let pid: string;
  beforeAll(async () => {
    pid = await c.pipeline({ name: "Failures" });
  });

  test("GIF bytes fail with an error that names the type", async () => {
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, ...new Uint8Array(64).fill(7)]);
    const { created, put } = await c.upload(pid, "photo.gif", gif);
    expect(put.status).toBe(200);
    const done = await c.settled(pid, created.id);
    expect(done.status).toBe("failed");
    expect(done.error).toContain("image/gif");
    expect(done.chunkCount).toBe(0);
  });

  test("a url answering 404 fails with 'answered 404'", async () => {
    const url = `http://127.0.0.1:${site.port}/missing`;
    const s = await c.addSource(pid, { type: "url", url });
    const done = await c.settled(pid, s.body.id);
    expect(done.status).toBe("failed");
    expect(done.error).toContain("answered 404");
  });

  test("a retry of a source that is not failed is 409; of an unknown one, 404", async () => {
    const ok = await c.addText(pid, "a fine little text");
    await c.settled(pid, ok.id);
    const conflict = await c.call("POST", `/api/rag/pipelines/${pid}/sources/${ok.id}/retry`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("conflict");
    const missing = await c.call(
      "POST",
      `/api/rag/pipelines/${pid}/sources/0190c1d2-0000-7000-8000-000000000000/retry`,
    );
    expect(missing.status).toBe(404);
  });

  test("the pipeline with failed sources and nothing processing is in error; chunkCount counts only the ready ones", async () => {
    const p = await c.getPipeline(pid);
    const sources = await c.sources(pid);
    expect(p.status).toBe("error");
    expect(p.chunkCount).toBe(sources.filter((s) => s.status === "ready").reduce((n, s) => n + s.chunkCount, 0));
    expect(await t.services.vectorStore.countRows(pid, 1)).toBe(p.chunkCount);
  });

  test.each([
    ["http://127.0.0.1:9/page", "address 127.0.0.1 is refused by the fetch rules (loopback)"],
    ["http://reader:s3cret@[::1]/page", "address ::1 is refused by the fetch rules (loopback)"],
    ["http://localhost./page", "host localhost is refused by the fetch rules (loopback)"],
    ["http://169.254.169.254/latest", "address 169.254.169.254 is refused by the fetch rules (cloud metadata)"],
  ])("without RAGD_FETCH_ALLOW, %s is refused at creation, as a source and as a document", async (url, message) => {
    const strict = await makeApp();
    try {
      const sc = await Client.create(strict);
      const spid = await sc.pipeline({ name: "strict" });
      const error = { code: "invalid_request", message: `url: ${message}`, details: [{ field: "url", message }] };
      for (const body of [
        { type: "url", url },
        { type: "api", url },
        { type: "url", url, crawl: { depth: 1 } },
      ]) {
        const s = await sc.addSource(spid, body);
        expect([s.status, s.body.error]).toEqual([400, error]);
      }
      const key = await sc.call("POST", `/api/rag/pipelines/${spid}/keys`, { name: "sync", scopes: ["ingest"] });
      const headers = { authorization: `Bearer ${key.body.key}` };
      const put = await strict.call("PUT", "/api/rag/documents/intranet", { headers, body: { type: "url", url } });
      expect([put.status, put.body.error]).toEqual([400, error]);
      const batch = await strict.call("POST", "/api/rag/documents/batch", {
        headers,
        body: { documents: [{ externalId: "intranet", type: "api", url }] },
      });
      expect(batch.body.results[0].error.details).toEqual([{ field: "documents.0.url", message }]);
      expect(await sc.sources(spid)).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  test("a model Ollama does not have fails with the `ollama pull` to run; after pulling it, retry makes it ready", async () => {
    const mpid = await c.pipeline({ name: "Unpulled", embeddingModel: "ollama/snowflake-arctic-embed" });
    const s = await c.addText(mpid, "Arctic snowflakes are embedded here.");
    const failed = await c.settled(mpid, s.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toContain("ollama pull snowflake-arctic-embed");
    expect((await c.getPipeline(mpid)).status).toBe("error");

    await fake.set({ models: { "all-minilm": 384, "snowflake-arctic-embed": 1024 } });
    const retried = await c.call("POST", `/api/rag/pipelines/${mpid}/sources/${s.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.source).toMatchObject({ id: s.id, status: "queued", error: null });
    const done = await c.settled(mpid, s.id);
    expect(done).toMatchObject({ status: "ready", error: null });
    const p = await c.getPipeline(mpid);
    expect(p).toMatchObject({ status: "ready", chunkCount: done.chunkCount, embeddingDimensions: 1024 });
  });
});

describe("Ollama down", () => {
  test("the task records 'is not reachable' and waits to retry; once Ollama is up the source becomes ready", async () => {
    const down = await startFakeOllama({ models: { "all-minilm": 384 }, latencyMs: 5 });
    await down.down();
    const app = await makeApp({ ollamaUrl: down.url });
    try {
      const dc = await Client.create(app);
      const pid = await dc.pipeline({ name: "Offline", embeddingModel: "ollama/all-minilm" });
      const s = await dc.addText(pid, "Text that waits for Ollama to come back.");
      const task = (await waitFor("a task with a last error", () =>
        app.services.db.reader.$client
          .query("SELECT status, attempts, last_error FROM tasks WHERE document_id = ? AND last_error IS NOT NULL")
          .get(s.id),
      )) as { status: string; attempts: number; last_error: string };
      expect(task.last_error).toContain("is not reachable");
      expect(task.last_error).toContain(down.url);
      expect(task.attempts).toBeLessThan(5);
      const waiting = await dc.source(pid, s.id);
      expect(["queued", "processing"]).toContain(waiting!.status);
      expect((await dc.getPipeline(pid)).status).toBe("processing");

      down.up();
      const done = await dc.settled(pid, s.id, 30_000);
      expect(done).toMatchObject({ status: "ready", error: null });
      expect(done.chunkCount).toBeGreaterThan(0);
    } finally {
      await app.close();
      await down.stop();
    }
  }, 45_000);
});

describe("zip bombs", () => {
  test("a DOCX with a 150 MB entry of zeros fails cleanly and the server keeps answering", async () => {
    const pid = await c.pipeline({ name: "Bombs" });
    const zip = new JSZip();
    zip.file("[Content_Types].xml", "<Types/>");
    zip.file(
      "word/document.xml",
      `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>`,
    );
    zip.file("word/media/zeros.bin", new Uint8Array(150 * 1024 * 1024));
    const bomb = await zip.generateAsync({
      type: "uint8array",
      compression: "DEFLATE",
      compressionOptions: { level: 9 },
    });
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const { created, put } = await c.upload(pid, "bomb.docx", bomb);
    expect(put.status).toBe(200);
    const done = await c.settled(pid, created.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/zip archive refused/);
    expect((await t.call("GET", "/healthz")).body).toEqual({ status: "ok" });
  });

  test("a DOCX with 3,000 entries fails cleanly", async () => {
    const pid = await c.pipeline({ name: "Many entries" });
    const extra = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`word/part${i}.xml`, "<x/>"]));
    const { created } = await c.upload(pid, "many.docx", await makeDocx(["many parts"], extra));
    const done = await c.settled(pid, created.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/zip archive refused: .*entries/);
    expect((await t.call("GET", "/healthz")).status).toBe(200);
    // The next document still goes through.
    const ok = await c.addText(pid, "After the bomb, ordinary text still ingests.");
    expect((await c.settled(pid, ok.id)).status).toBe("ready");
  });
});

describe("large text sources in responses", () => {
  test("lists carry the first 2,000 characters of the text and its full length", async () => {
    const pid = await c.pipeline({ name: "big text" });
    const text = "word ".repeat(2000);
    const s = await c.addText(pid, text);
    expect(s.content).toBe(text.slice(0, 2000));
    expect((s as unknown as { contentLength: number }).contentLength).toBe(text.length);
    const listed = (await c.sources(pid))[0]!;
    expect(String(listed.content).length).toBe(2000);
  });
});
