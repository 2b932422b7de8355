/**
 * Replacing documents through the documents API (docs/API.md, Documents API): what
 * concurrent queries see while a version replaces another, and url documents whose
 * re-fetched text is compared with what is indexed. The fake Ollama counts embeddings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DocumentsFixture } from "./support/documents";
import type { FakeOllama } from "./support/fake-ollama";
import { type Client, waitFor } from "./support/ingest";

const f = new DocumentsFixture();
const { keyFor, put, settled, contents } = f;
let fake: FakeOllama;
let c: Client;

beforeAll(async () => {
  // The replacement test queries as fast as it can: the per-key rate limit is not what it checks.
  await f.open({ fetchAllow: ["127.0.0.1"], queryRate: 100_000, queryBurst: 100_000 });
  ({ fake, c } = f);
});
afterAll(() => f.close());

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
