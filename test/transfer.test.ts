/**
 * Pipeline export and import (docs/API.md, Export and import): carried to another
 * ragd and imported for another user, a pipeline answers the same queries at once,
 * and the importing side embeds nothing to get there (counted at its Ollama).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { email, makeApp, type TestApp } from "./support/app";
import { exportResponse, importArchive } from "./support/archives";
import { type FakeOllama, startFakeOllama } from "./support/fake-ollama";
import { Client } from "./support/ingest";

const MODEL = "nomic-embed-text";
let ollamaA: FakeOllama;
let ollamaB: FakeOllama;
let a: TestApp;
let b: TestApp;
let ca: Client;
let pipelineId = "";
let exported: Uint8Array;

/** Two linked pages on loopback, for a crawl source with a schedule. */
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const path = new URL(req.url).pathname;
    const page = (body: string) =>
      new Response(`<html><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });
    if (path === "/") return page(`<p>The harbour crane schedule.</p><a href="/tides">tides</a>`);
    if (path === "/tides") return page("<p>Spring tides and neap tides in the harbour.</p>");
    return new Response("none", { status: 404 });
  },
});

const QUERIES = ["tidal energy in estuaries", "copper wiring cost", "lighthouse keepers", "orchard frost"];
const MODES = ["vector", "keyword", "hybrid"];

/** A query's answer without the source ids, which are new on the importing side. */
async function answers(c: Client, key: string) {
  const out: unknown[] = [];
  for (const query of QUERIES)
    for (const mode of MODES) {
      const r = await c.query(key, { query, mode, topK: 6 });
      expect(r.status).toBe(200);
      out.push(
        r.body.results.map((x: any) => {
          const { sourceId: _, ...meta } = x.metadata;
          return { content: x.content, score: x.score, meta };
        }),
      );
    }
  return out;
}

beforeAll(async () => {
  ollamaA = await startFakeOllama({ models: { [MODEL]: 64 } });
  ollamaB = await startFakeOllama({ models: { [MODEL]: 64 } });
  a = await makeApp({ ollamaUrl: ollamaA.url, queryRate: 100_000, queryBurst: 100_000, fetchAllow: ["127.0.0.1"] });
  // The importing side's fetch rules must allow the crawl's loopback site, as they would to create it there.
  b = await makeApp({ ollamaUrl: ollamaB.url, queryRate: 100_000, queryBurst: 100_000, fetchAllow: ["127.0.0.1"] });
  ca = await Client.create(a);
  pipelineId = await ca.pipeline({ name: "Field notes", embeddingModel: MODEL, chunkSize: 200, chunkOverlap: 20 });
  const topics = [
    "tidal energy in estuaries",
    "copper wiring and its cost",
    "lighthouse keepers' logs",
    "orchard frost nights",
  ];
  for (const [i, topic] of topics.entries()) {
    const r = await ca.addSource(pipelineId, {
      type: "text",
      name: topic,
      // Topic words repeated a varying number of times: chunks that tie on a score may come back in either order.
      content: Array.from(
        { length: 12 },
        (_, j) => `Note ${i}.${j}: ${`${topic} `.repeat(1 + ((j * 7 + i) % 5))}seen ${j * 13 + i}.`,
      ).join(" "),
      metadata: { topic, year: 2000 + i, tags: ["field", `t${i}`] },
      externalId: `note-${i}`,
    });
    expect(r.status).toBe(201);
  }
  const file = new TextEncoder().encode(
    "A file about copper wiring in old lighthouses, and the cost of repairs.\n".repeat(30),
  );
  await ca.upload(pipelineId, "wiring.txt", file);
  await ca.allSettled(pipelineId);
  const res = await exportResponse(a, ca.cookie, pipelineId);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/x-tar");
  exported = new Uint8Array(await res.arrayBuffer());
}, 60_000);

afterAll(async () => {
  site.stop(true);
  await a?.close();
  await b?.close();
  await ollamaA?.stop();
  await ollamaB?.stop();
});

describe("export and import", () => {
  test("the imported pipeline answers as the original, with nothing embedded on import", async () => {
    // Answers of the original with its indexes up to date (as they are after its periodic upkeep).
    await a.services.vectorStore.upkeep();
    const keyA = await ca.key(pipelineId);
    const expected = await answers(ca, keyA);
    const cb = await Client.create(b);
    await cb.pipeline({ name: "Field notes" }); // the name is taken on the importing side
    const before = ollamaB.stats().calls;
    const r = await importArchive(b, cb.cookie, exported);
    expect(r.status).toBe(201);
    expect(ollamaB.stats().calls).toBe(before); // no embedding on import
    expect(r.body).toMatchObject({ renamedFrom: "Field notes", sources: 5, model: { name: MODEL, available: true } });
    expect(r.body.pipelineId).not.toBe(pipelineId);
    const p = await cb.getPipeline(r.body.pipelineId);
    expect(p).toMatchObject({
      name: "Field notes (imported)",
      status: "ready",
      embeddingModel: MODEL,
      embeddingDimensions: 64,
    });
    expect(p.chunkCount).toBe(r.body.chunks);
    const sources = await cb.sources(r.body.pipelineId);
    expect(sources.map((s) => s.externalId).sort()).toEqual(["note-0", "note-1", "note-2", "note-3", null]);
    expect(await answers(cb, await cb.key(r.body.pipelineId))).toEqual(expected);
  });

  test("a model the importing Ollama lacks is said so, and keyword queries still work", async () => {
    const c = await Client.create(b);
    await ollamaB.set({ models: { "all-minilm": 384 } });
    try {
      const r = await importArchive(b, c.cookie, exported);
      expect(r.status).toBe(201);
      expect(r.body.model.available).toBe(false);
      expect(r.body.model.message).toContain(`${MODEL} is not installed`);
      const key = await c.key(r.body.pipelineId);
      expect((await c.query(key, { query: "copper", mode: "keyword" })).body.results.length).toBeGreaterThan(0);
    } finally {
      await ollamaB.set({ models: { [MODEL]: 64 } });
    }
  });

  test("refused: damaged or truncated exports, a backup, and a tier without room", async () => {
    const c = await Client.create(b);
    const count = async () => (await c.call("GET", "/api/rag/pipelines")).body.total;
    const damaged = exported.slice();
    damaged[Math.floor(damaged.length * 0.7)]! ^= 0xff;
    for (const bytes of [damaged, exported.subarray(0, Math.floor(exported.length / 2))]) {
      const r = await importArchive(b, c.cookie, bytes);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/import refused: .*(damaged|truncated|incomplete).*nothing was stored/);
    }
    const backup = await b.services.backups.prepare();
    const chunks: Uint8Array[] = [];
    for await (const part of backup.bytes) chunks.push(part.slice());
    const r = await importArchive(b, c.cookie, Buffer.concat(chunks));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("not a ragd pipeline export");
    expect(await count()).toBe(0);
    // A free user may have one pipeline.
    const free = await b.signup(email("free"));
    await b.call("POST", "/api/rag/pipelines", { cookie: free, body: { name: "mine" } });
    const over = await importArchive(b, free, exported);
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe("tier_limit_reached");
  });

  test("the file is named <name>.ragd-export.tar, the name made safe for a header and a disk", async () => {
    const names: [string, string, string][] = [
      ["Field notes", "Field notes.ragd-export.tar", "Field%20notes.ragd-export.tar"],
      ["Café menu", "Caf_ menu.ragd-export.tar", "Caf%C3%A9%20menu.ragd-export.tar"],
      ["日本語", "___.ragd-export.tar", "%E6%97%A5%E6%9C%AC%E8%AA%9E.ragd-export.tar"],
      ['../a/b\\c "quoted"', "a-b-c -quoted-.ragd-export.tar", "a-b-c%20-quoted-.ragd-export.tar"],
      ["tab\tand\u202Eright-to-left", "tab andright-to-left.ragd-export.tar", "tab%20andright-to-left.ragd-export.tar"],
      ["100% (draft)*", "100_ (draft)-.ragd-export.tar", "100%25%20%28draft%29-.ragd-export.tar"],
      ["...", "pipeline.ragd-export.tar", "pipeline.ragd-export.tar"],
      ["x".repeat(150), `${"x".repeat(100)}.ragd-export.tar`, `${"x".repeat(100)}.ragd-export.tar`],
    ];
    for (const [name, plain, encoded] of names) {
      const id = await ca.pipeline({ name });
      const res = await exportResponse(a, ca.cookie, id);
      await res.body?.cancel();
      expect([name, res.status, res.headers.get("content-disposition")]).toEqual([
        name,
        200,
        `attachment; filename="${plain}"; filename*=UTF-8''${encoded}`,
      ]);
    }
  });

  test("no session, no import; a foreign pipeline is not exported", async () => {
    expect((await importArchive(b, "", exported)).status).toBe(401);
    const other = await Client.create(a);
    const r = await other.call("POST", `/api/rag/pipelines/${pipelineId}/export`);
    expect(r.status).toBe(404);
  });
});

describe("export and import of fetch settings", () => {
  test("a crawl keeps its schedule, its settings and its pages; the pipeline its OCR languages", async () => {
    const id = await ca.pipeline({ name: "Harbour", embeddingModel: MODEL, ocrLanguages: ["eng"] });
    const r = await ca.addSource(id, {
      type: "url",
      url: `http://127.0.0.1:${site.port}/`,
      refreshEvery: 7200,
      crawl: { depth: 1 },
    });
    expect(r.status).toBe(201);
    await ca.allSettled(id);
    const res = await exportResponse(a, ca.cookie, id);
    expect(res.status).toBe(200);
    const cb = await Client.create(b);
    const imported = await importArchive(b, cb.cookie, new Uint8Array(await res.arrayBuffer()));
    expect(imported.status).toBe(201);
    const pid = imported.body.pipelineId;
    expect((await cb.getPipeline(pid)).ocrLanguages).toEqual(["eng"]);
    const sources = await cb.sources(pid);
    const crawl = sources.find((s) => s.crawl);
    expect(crawl).toMatchObject({ refreshEvery: 7200, crawl: { depth: 1 } });
    expect(Date.parse(crawl!.nextCheckAt as string)).toBeGreaterThan(Date.now());
    const pages = sources.filter((s) => s.crawlSourceId);
    expect(pages.map((p) => new URL(p.url as string).pathname).sort()).toEqual(["/", "/tides"]);
    // The pages belong to the imported crawl, not to the original's id.
    expect(new Set(pages.map((p) => p.crawlSourceId))).toEqual(new Set([crawl!.id]));
  });
});
