/**
 * Replacing documents through the documents API (docs/API.md, Documents API): what
 * concurrent queries see while a version replaces another, and url documents whose
 * re-fetched text is compared with what is indexed. The fake Ollama counts embeddings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";

let fake: FakeOllama;
let t: TestApp;
let c: Client;
let pid: string;
let key: string;

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url, workers: 1, fetchAllow: ["127.0.0.1"] });
  c = await Client.create(t);
  pid = await c.pipeline({ name: "docs", embeddingModel: "ollama/all-minilm", chunkSize: 100, chunkOverlap: 0 });
  key = await keyFor(pid, ["query", "ingest"]);
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

async function keyFor(pipelineId: string, scopes: string[]): Promise<string> {
  const r = await c.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { name: "app", scopes });
  if (r.status !== 201) throw new Error(`key: ${r.status} ${r.text}`);
  return r.body.key;
}

const auth = (k = key) => ({ authorization: `Bearer ${k}` });
const put = (id: string, body: unknown, k = key) =>
  t.call("PUT", `/api/rag/documents/${encodeURIComponent(id)}`, { headers: auth(k), body });
const get = (id: string, k = key) =>
  t.call("GET", `/api/rag/documents/${encodeURIComponent(id)}`, { headers: auth(k) });

/** Waits until the document is ready (and not re-queued) and returns it. */
async function settled(id: string, k = key) {
  return waitFor(`document ${id} to be ready`, async () => {
    const r = await get(id, k);
    return r.body?.status === "ready" || r.body?.status === "failed" ? r.body : null;
  });
}

/** Every chunk text the pipeline answers with for a vector query (topK 100 covers all of these small corpora). */
async function contents(k = key): Promise<string[]> {
  const r = await t.call("POST", "/api/rag/query", {
    headers: auth(k),
    body: { query: "anything", topK: 100, mode: "vector" },
  });
  if (r.status !== 200) throw new Error(`query: ${r.status} ${r.text}`);
  return r.body.results.map((x: { content: string }) => x.content);
}

describe("replacement is atomic for queries", () => {
  test("concurrent queries see all of the old version or all of the new, never neither nor both", async () => {
    const p = await c.pipeline({
      name: "atomic",
      embeddingModel: "ollama/all-minilm",
      chunkSize: 100,
      chunkOverlap: 0,
    });
    const k = await keyFor(p, ["query", "ingest"]);
    // 30 sentences of ~40 characters: a few chunks per version, each naming its version.
    const version = (v: string) =>
      Array.from({ length: 30 }, (_, i) => `Version ${v} sentence number ${i} here.`).join(" ");
    await put("atomic-doc", { type: "text", content: version("A0") }, k);
    const chunks = (await settled("atomic-doc", k)).chunkCount;
    expect(chunks).toBeGreaterThan(3);
    const seen: string[] = [];
    let stop = false;
    const watcher = (async () => {
      while (!stop) {
        const got = await contents(k);
        const versions = new Set(got.map((x) => /Version (\w+)/.exec(x)?.[1]));
        seen.push(`${got.length}:${[...versions].join(",")}`);
      }
    })();
    for (let round = 1; round <= 6; round++) {
      await put("atomic-doc", { type: "text", content: version(`A${round}`) }, k);
      await waitFor("the new version to be served", async () =>
        (await contents(k)).some((x) => x.includes(`A${round} `)),
      );
      await settled("atomic-doc", k);
    }
    stop = true;
    await watcher;
    expect(seen.length).toBeGreaterThan(20);
    const bad = seen.filter((s) => !new RegExp(`^${chunks}:A\\d$`).test(s));
    expect(bad).toEqual([]);
  });
});

describe("url documents are compared after extraction", () => {
  test("a re-fetch that brings the same text embeds nothing; new text is embedded", async () => {
    let page = "<html><body><p>Zeta page text, first edition.</p></body></html>";
    let fetches = 0;
    const site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        fetches++;
        return new Response(page, { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const url = `http://127.0.0.1:${site.port}/page`;
      expect((await put("page-1", { type: "url", url })).status).toBe(201);
      await settled("page-1");
      const before = fake.stats().inputs;
      // Different markup, same extracted text.
      page = "<html><head><title>x</title></head><body><p>Zeta page text, first edition.</p></body></html>";
      const again = await put("page-1", { type: "url", url });
      expect(again.body.status).toBe("replaced");
      await waitFor("the second fetch", () => fetches >= 2);
      expect((await settled("page-1")).chunkCount).toBe(1);
      expect(fake.stats().inputs).toBe(before);
      page = "<html><body><p>Zeta page text, second edition.</p></body></html>";
      await put("page-1", { type: "url", url });
      await waitFor("the new text to be served", async () =>
        (await contents()).includes("Zeta page text, second edition."),
      );
      expect(fake.stats().inputs).toBeGreaterThan(before);
      expect(await contents()).not.toContain("Zeta page text, first edition.");
    } finally {
      site.stop(true);
    }
  });
});
