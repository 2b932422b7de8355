/**
 * The hybrid blend through the HTTP API (docs/API.md, Scores and the hybrid
 * blend): `hybridAlpha` per request and per pipeline, its bounds, α 0 and 1
 * answering as keyword and vector mode, and hybrid scores that are a blend of the
 * chunk's own keyword and vector scores whichever candidate lists found it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RELEVANCE_FLOOR } from "../src/vectors/fusion";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";

const DOCS = [
  "The velcorastat trial enrolled 412 adults with chronic migraine across nine clinics.",
  "Opening days of the municipal library are listed on the board by the entrance.",
  "A hydraulic pump moves fluid through the loader's lifting arm under high pressure.",
  "Heather honey from the northern moors is thick, dark and strongly flavoured.",
  "The router forwards packets between the office network and the internet link.",
  "Migraine attacks often begin with an aura of flickering light before the pain.",
  "The volcano covered the valley in grey ash for three days after the eruption.",
  "Sourdough bread rises slowly because wild yeast ferments the dough overnight.",
];

interface Hit {
  score: number;
  content: string;
  metadata: { sourceId: string; chunkIndex: number };
}

let t: TestApp;
let c: Client;
let pipeline: string;
let key: string;

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "Blend", embeddingModel: "builtin" });
  key = await c.key(pipeline);
  for (const [i, d] of DOCS.entries()) await c.addText(pipeline, d, `doc-${i}`);
  await c.allSettled(pipeline);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function search(body: Record<string, unknown>): Promise<Hit[]> {
  const r = await c.query(key, { topK: 100, ...body });
  if (r.status !== 200) throw new Error(`query ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  return r.body.results;
}

const order = (hits: Hit[]) => hits.map((h) => h.content);
const scoreOf = (hits: Hit[]) => new Map(hits.map((h) => [h.content, h.score]));

describe("hybridAlpha bounds", () => {
  test.each([-0.1, 1.5, "0.5", null])("the query endpoint rejects hybridAlpha %p with 400 naming it", async (a) => {
    const r = await c.query(key, { query: "migraine", hybridAlpha: a });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(r.body.error)).toContain("hybridAlpha");
  });

  test.each([-0.1, 1.01, "x"])("pipeline create and PATCH reject hybridAlpha %p with 400 naming it", async (a) => {
    const created = await c.call("POST", "/api/rag/pipelines", { name: "Bad blend", hybridAlpha: a });
    const patched = await c.call("PATCH", `/api/rag/pipelines/${pipeline}`, { hybridAlpha: a });
    for (const r of [created, patched]) {
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body.error)).toContain("hybridAlpha");
    }
    expect((await c.getPipeline(pipeline)).hybridAlpha).toBeNull();
  });
});

describe("the blend", () => {
  const QUERIES = ["how many days did the migraine trial run", "honey bread pump", "volcano ash valley eruption"];

  test.each(QUERIES)("α 0 answers as keyword mode and α 1 as vector mode: %p", async (query) => {
    expect(order(await search({ query, hybridAlpha: 0 }))).toEqual(order(await search({ query, mode: "keyword" })));
    expect(order(await search({ query, hybridAlpha: 1 }))).toEqual(order(await search({ query, mode: "vector" })));
  });

  test.each(QUERIES)("a hybrid score lies between the chunk's keyword and vector scores: %p", async (query) => {
    const [k, v] = [
      scoreOf(await search({ query, mode: "keyword" })),
      scoreOf(await search({ query, mode: "vector" })),
    ];
    const hybrid = await search({ query, hybridAlpha: 0.5 });
    expect(hybrid.length).toBe(DOCS.length);
    for (const h of hybrid) {
      const [ks, vs] = [k.get(h.content) ?? 0, v.get(h.content)!];
      expect(h.score).toBeCloseTo((ks + vs) / 2, 5);
    }
  });

  test("a chunk sharing one common word with the query does not score near 1", async () => {
    const hits = await search({ query: "how many days did the migraine trial run", mode: "hybrid" });
    const days = hits.find((h) => h.content.startsWith("Opening days"))!;
    expect(days.score).toBeLessThan(0.3);
    expect(hits[0]!.score).toBeGreaterThan(days.score);
  });

  test("the pipeline's hybridAlpha is the default of its queries; a request's own overrides it", async () => {
    const query = "honey bread pump";
    const keyword = order(await search({ query, mode: "keyword" }));
    const vector = order(await search({ query, mode: "vector" }));
    const patched = await c.call("PATCH", `/api/rag/pipelines/${pipeline}`, { hybridAlpha: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body.hybridAlpha).toBe(1);
    try {
      expect(order(await search({ query }))).toEqual(vector);
      expect(order(await search({ query, hybridAlpha: 0 }))).toEqual(keyword);
    } finally {
      const reset = await c.call("PATCH", `/api/rag/pipelines/${pipeline}`, { hybridAlpha: null });
      expect(reset.body.hybridAlpha).toBeNull();
    }
  });

  test("a pipeline can be created with its blend", async () => {
    const id = await c.pipeline({ name: "Blend 0.3", hybridAlpha: 0.3 });
    expect((await c.getPipeline(id)).hybridAlpha).toBe(0.3);
  });
});

describe("relevance", () => {
  test("a query about nothing in the pipeline says so; one about something does not", async () => {
    const off = await c.query(key, { query: "quarterly tax filing deadline for freelancers" });
    expect(off.status).toBe(200);
    expect(off.body.results.length).toBeGreaterThan(0); // still the closest chunks, scored low
    expect(off.body.noRelevantResults).toBe(true);
    const on = await c.query(key, { query: "velcorastat migraine trial" });
    expect(on.body.noRelevantResults).toBe(false);
    expect(on.body.results[0].content).toContain("velcorastat");
  });

  test("knowledge-base search takes mode, minScore and hybridAlpha, and says when nothing is relevant", async () => {
    const kbId = (await c.call("POST", "/api/kb", { name: "Blend KB" })).body.id as string;
    for (const [i, d] of DOCS.slice(0, 4).entries()) {
      const form = new FormData();
      form.append("file", new File([d], `doc-${i}.txt`, { type: "text/plain" }));
      const up = await t.handle(
        new Request(`http://localhost/api/kb/${kbId}/upload`, {
          method: "POST",
          body: form,
          headers: { cookie: c.cookie },
        }),
      );
      expect(up.status).toBe(202);
    }
    const kbSearch = (body: Record<string, unknown>) => c.call("POST", `/api/kb/${kbId}/search`, body);
    await waitFor("the knowledge base to be ready", async () =>
      ((await c.call("GET", `/api/kb/${kbId}`)).body.documents as { status: string }[]).every(
        (d) => d.status === "ready",
      ),
    );
    const all = await kbSearch({ query: "honey pump", topK: 10 });
    expect(all.body.results).toHaveLength(4);
    const keyword = await kbSearch({ query: "honey pump", mode: "keyword", topK: 10 });
    expect(keyword.body.results.map((h: Hit) => h.content).sort()).toEqual(
      DOCS.filter((d) => /honey|pump/.test(d)).sort(),
    );
    const floor = await kbSearch({ query: "honey pump", topK: 10, minScore: RELEVANCE_FLOOR });
    expect(floor.body.results.length).toBeLessThan(4);
    expect(floor.body.results.every((h: Hit) => h.score >= RELEVANCE_FLOOR)).toBe(true);
    expect(floor.body.noRelevantResults).toBe(false);
    const off = await kbSearch({ query: "quarterly tax filing deadline for freelancers", minScore: RELEVANCE_FLOOR });
    expect(off.body).toMatchObject({ results: [], noRelevantResults: true });
    expect((await kbSearch({ query: "honey", hybridAlpha: 2 })).status).toBe(400);
  });
});
