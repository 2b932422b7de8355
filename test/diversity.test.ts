/**
 * `diversity` (maximal marginal relevance, docs/API.md, Query): a long page cut
 * into heavily overlapping chunks fills the top results on its own; with
 * diversity, the other pages that answer come up too. (Keyword mode ranks the
 * short pages first here, BM25 favouring short texts, so it has no pile-up to undo.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

const PAGE = Array.from(
  { length: 12 },
  (_, i) =>
    `Solar inverter maintenance, step ${i + 1}: check the solar inverter fan, clean the inverter filter and log the solar panel output.`,
).join(" ");
const OTHERS = [
  "Inverter error codes on a solar installation: E01 means grid voltage too high, E02 a panel isolation fault.",
  "Cleaning solar panels twice a year keeps their output high; use soft water and never a pressure washer.",
  "Before any maintenance, switch the inverter off at the isolator and wait five minutes.",
  "A bakery sells rye bread and cinnamon buns every morning from seven.",
];
const QUERY = "solar inverter maintenance and panel cleaning";

interface Hit {
  score: number;
  content: string;
  metadata: { sourceName: string; chunkIndex: number };
}

let t: TestApp;
let c: Client;
let key: string;

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  const pipeline = await c.pipeline({ name: "Overlap", embeddingModel: "builtin", chunkSize: 300, chunkOverlap: 200 });
  key = await c.key(pipeline);
  await c.addText(pipeline, PAGE, "manual");
  for (const [i, d] of OTHERS.entries()) await c.addText(pipeline, d, `other-${i}`);
  await c.allSettled(pipeline);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function search(body: Record<string, unknown>): Promise<Hit[]> {
  const r = await c.query(key, { query: QUERY, topK: 5, ...body });
  if (r.status !== 200) throw new Error(`query ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  return r.body.results;
}

const sources = (hits: Hit[]) => new Set(hits.map((h) => h.metadata.sourceName));

describe("diversity", () => {
  test.each(["hybrid", "vector"])("%s: overlapping chunks of one page give way to other pages", async (mode) => {
    const manual = (hits: Hit[]) => hits.filter((h) => h.metadata.sourceName === "manual").length;
    const plain = await search({ mode });
    expect(plain).toHaveLength(5);
    expect(manual(plain)).toBeGreaterThanOrEqual(2);
    const varied = await search({ mode, diversity: 0.7 });
    expect(varied).toHaveLength(5);
    expect(varied[0]!.score).toBe(plain[0]!.score); // the best result stays first (ties in any order)
    expect(manual(varied)).toBeLessThan(manual(plain));
    expect(manual(varied)).toBeLessThanOrEqual(2);
    expect(sources(varied).size).toBeGreaterThan(sources(plain).size);
  });

  test("diversity 0 is the plain ranking", async () => {
    const [off, plain] = [await search({ diversity: 0, topK: 50 }), await search({ topK: 50 })];
    // Overlapping chunks tie, and the index may return tied chunks in either order.
    expect(off.map((h) => h.score)).toEqual(plain.map((h) => h.score));
    const key = (h: Hit) => `${h.metadata.sourceName}#${h.metadata.chunkIndex}`;
    expect(off.map(key).sort()).toEqual(plain.map(key).sort());
  });

  test.each([-0.5, 1.2, "high"])("diversity %p is 400 naming the field", async (d) => {
    const r = await c.query(key, { query: QUERY, diversity: d });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain("diversity");
  });
});
