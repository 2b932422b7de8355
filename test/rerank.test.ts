/**
 * Reranking (docs/API.md, Reranking): a pipeline with a rerankModel sends its
 * query candidates to the reranker at RAGD_RERANK_URL and answers in its order;
 * when the reranker is down, slow or answers a wrong shape, the query still
 * answers, unreranked, and says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { StoredHit, TableSearch } from "../src/vectors/store";
import { makeApp, type TestApp } from "./support/app";
import { fakeRelevance, startFakeReranker, type FakeReranker, type RerankMode } from "./support/fake-rerank";
import { Client } from "./support/ingest";

const DOCS = [
  "Solar panels: cleaning solar panels twice a year keeps their output high, and a clean panel is a happy panel for many long years of service on the roof.",
  "Cleaning solar panels.",
  "Inverter maintenance for solar panels means checking the fan and the filter of the inverter every spring before the heat of the summer months arrives.",
  "Solar panels cleaning schedule and solar panels output log.",
  "A bakery sells rye bread and cinnamon buns every morning from seven.",
];
const QUERY = "cleaning solar panels";

interface Hit {
  content: string;
  score: number;
  rerankScore?: number;
}

let t: TestApp;
let c: Client;
let rr: FakeReranker;
let pipeline: string;
let key: string;

beforeAll(async () => {
  rr = await startFakeReranker();
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000, rerankUrl: rr.url });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "Reranked", embeddingModel: "builtin", rerankModel: "test-reranker" });
  key = await c.key(pipeline);
  for (const [i, d] of DOCS.entries()) await c.addText(pipeline, d, `doc-${i}`);
  await c.allSettled(pipeline);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await rr?.stop();
});

const ask = (body: Record<string, unknown> = {}) => c.query(key, { query: QUERY, topK: 3, ...body });

describe("reranking", () => {
  test("the answer follows the reranker's order and says it was reranked", async () => {
    const plain = (await c.query(key, { query: QUERY, topK: 3, mode: "hybrid" })).body;
    // Longest first: an order BM25, which favours short texts, would not give.
    const longest = (_q: string, d: string) => d.length / 1000;
    rr.set({ scorer: longest });
    try {
      const before = rr.requests.length;
      const r = await ask();
      expect(r.status).toBe(200);
      expect(r.body.reranked).toBe(true);
      expect(r.body.warning).toBeUndefined();
      const sent = rr.requests[before]!;
      expect(sent.model).toBe("test-reranker");
      expect(sent.query).toBe(QUERY);
      expect(sent.top_n).toBe(sent.documents.length);
      // The reranker saw every candidate; the answer is its best three, in its order.
      const expected = [...sent.documents].sort((a, b) => b.length - a.length).slice(0, 3);
      expect(r.body.results.map((h: Hit) => h.content)).toEqual(expected);
      for (const h of r.body.results as Hit[]) expect(h.rerankScore).toBeCloseTo(h.content.length / 1000, 9);
      expect(expected).not.toEqual(plain.results.map((h: Hit) => h.content));
    } finally {
      rr.set({ scorer: fakeRelevance });
    }
  });

  test.each<RerankMode>(["error500", "badShape", "fewer", "badIndex", "nanScore"])(
    "a reranker answering %s is treated as down: unreranked, with a warning",
    async (mode) => {
      rr.set({ mode });
      try {
        const r = await ask();
        expect(r.status).toBe(200);
        expect(r.body.reranked).toBe(false);
        expect(r.body.warning).toContain("not reranked");
        expect(r.body.results).toHaveLength(3);
        expect(r.body.results.every((h: Hit) => h.rerankScore === undefined)).toBe(true);
        // Exactly the unreranked answer: the same chunks, metadata and exact hybrid scores.
        const plain = (await c.query(key, { query: QUERY, topK: 3, mode: "hybrid" })).body.results;
        expect(r.body.results).toEqual(plain);
      } finally {
        rr.set({ mode: "ok" });
      }
    },
  );

  test("a reranker that is down: the query answers unreranked, then reranks again once it is back", async () => {
    await rr.down();
    try {
      const r = await ask();
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ reranked: false });
      expect(r.body.warning).toContain("unreachable");
      expect(r.body.results).toHaveLength(3);
    } finally {
      rr.up();
    }
    expect((await ask()).body.reranked).toBe(true);
  });

  test("a pipeline without a rerankModel is not reranked and says nothing about it", async () => {
    const other = await c.pipeline({ name: "Plain", embeddingModel: "builtin" });
    const otherKey = await c.key(other);
    await c.addText(other, DOCS[0]!, "only");
    await c.allSettled(other);
    const before = rr.requests.length;
    const r = await c.query(otherKey, { query: QUERY });
    expect(r.status).toBe(200);
    expect("reranked" in r.body).toBe(false);
    expect(rr.requests.length).toBe(before);
  });

  test.each(["", "x".repeat(201), 5])("rerankModel %p is 400 naming the field", async (m) => {
    const r = await c.call("PATCH", `/api/rag/pipelines/${pipeline}`, { rerankModel: m });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain("rerankModel");
  });
});

/**
 * Enough chunks that both candidate lists of the 50-candidate pool (200 deep) are
 * full, so some candidates are found by one list only and their other score is
 * unknown without a look-up.
 */
describe("the rerank pool", () => {
  const TERMS = ["solar", "panel", "cleaning"];
  const FILL = ["roof", "output", "inverter", "spring", "dust", "water", "brush", "weekly", "meter", "cable"];
  const BIG_QUERY = "solar panel cleaning";
  let bigKey: string;
  const calls: { id: string; generation: number; req: TableSearch; hits: StoredHit[] }[] = [];

  beforeAll(async () => {
    const big = await c.pipeline({ name: "Large", embeddingModel: "builtin", rerankModel: "test-reranker" });
    bigKey = await c.key(big);
    let x = 7;
    const next = (n: number) => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x % n;
    };
    for (let i = 0; i < 400; i++) {
      // Every 4th is long with distinct words: far down in BM25, high by cosine (at α 0.9
      // the pool ranks by it), so it is found by the vector list only.
      const long = i % 4 === 0;
      const filler = FILL[next(FILL.length)]!;
      const words = long
        ? Array.from({ length: 30 }, (_, j) => `w${i}x${j}`)
        : Array.from({ length: 6 + next(6) }, () => filler);
      words.splice(next(words.length), 0, TERMS[1 + (i % 2)]!);
      await c.addText(big, `Note ${i}: ${words.join(" ")}.`, `note-${i}`);
    }
    await c.allSettled(big, 60_000);
    // Watches the searcher's table searches (the real store still answers them).
    const vectorStore = t.services.vectorStore;
    const search = vectorStore.search.bind(vectorStore);
    vectorStore.search = async (id, generation, req) => {
      const hits = await search(id, generation, req);
      calls.push({ id, generation, req, hits });
      return hits;
    };
  }, 120_000);

  /** Every chunk's exact hybrid score: an unreranked answer (reranker failing) deep enough to hold them all. */
  async function exactScores(): Promise<Map<string, number>> {
    rr.set({ mode: "error500" });
    try {
      const r = await c.query(bigKey, { query: BIG_QUERY, topK: 100, hybridAlpha: 0.9 });
      expect(r.body.reranked).toBe(false);
      return new Map((r.body.results as Hit[]).map((h) => [h.content, h.score]));
    } finally {
      rr.set({ mode: "ok" });
    }
  }

  test("is ranked by the scores its lists gave, without a look-up per candidate", async () => {
    calls.length = 0;
    const r = await c.query(bigKey, { query: BIG_QUERY, topK: 3, hybridAlpha: 0.9 });
    expect(r.body.reranked).toBe(true);
    const [pool, ...rest] = calls;
    expect(pool!.req).toMatchObject({ topK: 50, exact: false });
    // Beside the pool, at most one search, narrowed to the answer's own chunks.
    expect(rest.length).toBeLessThanOrEqual(1);
    for (const x of rest) expect(x.req.topK).toBeLessThanOrEqual(3);
    // Candidates found by one list only kept the lower bound: their other half was never looked up.
    const exact = await exactScores();
    console.log(
      JSON.stringify(pool!.req).slice(0, 300),
      pool!.hits.length,
      JSON.stringify(pool!.hits.slice(0, 3)),
      JSON.stringify(pool!.hits.slice(-3)),
    );
    const partial = pool!.hits.filter((h) => h.partial);
    expect(partial.length).toBeGreaterThan(0);
    for (const h of partial) expect(h.score).toBeLessThanOrEqual(exact.get(h.text)! + 1e-9);
    expect(partial.some((h) => h.score < exact.get(h.text)! - 1e-6)).toBe(true);
    for (const h of pool!.hits.filter((h) => !h.partial)) expect(h.score).toBeCloseTo(exact.get(h.text)!, 6);
  });

  test("a reranked answer still shows each chunk's exact hybrid score", async () => {
    calls.length = 0;
    await c.query(bigKey, { query: BIG_QUERY, topK: 3, hybridAlpha: 0.9 });
    const lower = new Map(calls[0]!.hits.filter((h) => h.partial).map((h) => [h.text, h.score]));
    expect(lower.size).toBeGreaterThan(0);
    // The reranker prefers the candidates whose pool score was only a lower bound.
    rr.set({ scorer: (_q, d) => (lower.has(d) ? 1 : 0) + d.length / 1e4 });
    try {
      const r = await c.query(bigKey, { query: BIG_QUERY, topK: 3, hybridAlpha: 0.9 });
      expect(r.body.reranked).toBe(true);
      const exact = await exactScores();
      expect(r.body.results).toHaveLength(3);
      const picked = (r.body.results as Hit[]).filter((h) => lower.has(h.content));
      expect(picked.length).toBe(Math.min(3, lower.size));
      for (const h of picked) {
        const want = exact.get(h.content)!;
        const gap = want - lower.get(h.content)!;
        expect(gap).toBeGreaterThan(1e-3);
        // The missing keyword half is looked up as hybrid search does, by a keyword search
        // narrowed to the chunk, whose BM25 statistics differ a little from the full search's:
        // the lower bound is replaced by a score nearer the exact one than it was (on tables
        // whose text ragd analyses the narrowed statistics differ a little more: 0.59 × the gap).
        expect(Math.abs(h.score - want)).toBeLessThan(gap * 0.75);
      }
    } finally {
      rr.set({ scorer: fakeRelevance });
    }
  });
});
