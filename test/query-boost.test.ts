/**
 * The query option `boost` (docs/API.md, Query, "Boosts") through POST /api/rag/query,
 * knowledge-base search and the MCP `search` tool; real SQLite and LanceDB. A recent or
 * matching source overtakes an older or other one that scores a little higher; scores
 * are the plain ones times the documented factor, in [0, 1]; hostile boosts are 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let c: Client;
let key: string;
let oldId: string;
let newId: string;
const NOW = new Date().toISOString();

type Hit = { content: string; score: number; metadata: { sourceId: string } };

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  const id = await c.pipeline({ name: "Boosts" });
  key = await c.key(id);
  const add = async (content: string, metadata: Record<string, unknown>) => {
    const r = await c.addSource(id, { type: "text", content, metadata });
    if (r.status !== 201) throw new Error(`add: ${r.status} ${r.text}`);
    return r.body.id as string;
  };
  // The old source holds all three of the query's words, the new one two.
  oldId = await add("Kestrel vault archive.", {
    team: "legal",
    published: "2019-03-01",
    tags: ["vault"],
  });
  newId = await add("Kestrel vault notes.", {
    team: "hr",
    published: NOW,
    tags: ["hr", "vault"],
  });
  for (const [i, topic] of ["roses in spring", "shipping containers", "budget meetings", "river ferries"].entries())
    await add(`Notes ${i} on ${topic} and other matters.`, { team: "ops", published: "2024-01-01" });
  await c.allSettled(id);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

async function ask(body: Record<string, unknown>): Promise<Hit[]> {
  // Vector mode: a keyword score moves when upkeep folds new chunks into the full-text index.
  const r = await c.query(key, { query: "Kestrel vault archive", mode: "vector", ...body });
  if (r.status !== 200) throw new Error(`query: ${r.status} ${r.text}`);
  return r.body.results;
}

const scoreOf = (hits: Hit[], id: string) => hits.find((h) => h.metadata.sourceId === id)!.score;

describe("boost", () => {
  test("without a boost the older source comes first", async () => {
    const plain = await ask({});
    expect(plain.map((h) => h.metadata.sourceId).slice(0, 2)).toEqual([oldId, newId]);
  });

  test("recency on a metadata date: the recent source overtakes, scores are the plain ones times the factor", async () => {
    const plain = await ask({});
    const boosted = await ask({ boost: { recency: { key: "published", halfLifeDays: 30, weight: 0.8 } } });
    expect(boosted[0]!.metadata.sourceId).toBe(newId);
    // Published now: factor 1. Published in 2019, about 80 half-lives ago: factor 1 − 0.8.
    expect(scoreOf(boosted, newId)).toBeCloseTo(scoreOf(plain, newId), 4);
    expect(scoreOf(boosted, oldId)).toBeCloseTo(scoreOf(plain, oldId) * 0.2, 6);
  });

  test("a metadata match: the matching team's chunk overtakes; an array value matches by element", async () => {
    const plain = await ask({});
    const byTeam = await ask({ boost: { match: { team: "hr" }, matchWeight: 0.7 } });
    expect(byTeam[0]!.metadata.sourceId).toBe(newId);
    expect(scoreOf(byTeam, newId)).toBeCloseTo(scoreOf(plain, newId), 6);
    expect(scoreOf(byTeam, oldId)).toBeCloseTo(scoreOf(plain, oldId) * 0.3, 6);
    // Two conditions, the old source meets one (tags holds "vault"): it loses half the weight.
    const half = await ask({ boost: { match: { tags: "vault", team: "hr" }, matchWeight: 0.4 } });
    expect(scoreOf(half, oldId)).toBeCloseTo(scoreOf(plain, oldId) * 0.8, 6);
  });

  test("scores stay in [0, 1] and never exceed the plain ones, in every mode", async () => {
    const boost = {
      match: { team: "hr" },
      matchWeight: 0.5,
      recency: { key: "published", halfLifeDays: 1, weight: 0.5 },
    };
    for (const mode of ["hybrid", "vector", "keyword"]) {
      const plain = await ask({ mode, topK: 10 });
      const boosted = await ask({ mode, topK: 10, boost });
      expect(boosted.length).toBeGreaterThan(0);
      for (const h of boosted) {
        expect(h.score).toBeGreaterThanOrEqual(0);
        expect(h.score).toBeLessThanOrEqual(1);
        if (mode === "vector") expect(h.score).toBeLessThanOrEqual(scoreOf(plain, h.metadata.sourceId) + 1e-12);
      }
      for (let i = 1; i < boosted.length; i++) expect(boosted[i]!.score).toBeLessThanOrEqual(boosted[i - 1]!.score);
    }
  });

  test("weight 0 answers as without a boost; minScore applies to the boosted score", async () => {
    const same = await ask({ boost: { match: { team: "hr" }, matchWeight: 0 } });
    const before = await ask({});
    expect(same.map((h) => h.metadata.sourceId)).toEqual(before.map((h) => h.metadata.sourceId));
    for (const [i, h] of same.entries()) expect(h.score).toBeCloseTo(before[i]!.score, 6);
    const plain = await ask({});
    const minScore = (scoreOf(plain, oldId) * 0.6 + scoreOf(plain, oldId)) / 2;
    expect(scoreOf(plain, oldId)).toBeGreaterThan(minScore);
    const cut = await ask({ minScore, boost: { match: { team: "hr" }, matchWeight: 0.4 } });
    expect(cut.map((h) => h.metadata.sourceId)).not.toContain(oldId);
  });

  test("hostile boosts are 400 with the error body, naming the field", async () => {
    const cases: [unknown, string][] = [
      [{}, "boost"],
      [{ match: {} }, "boost.match"],
      [{ match: { team: "hr" }, extra: 1 }, "boost.extra"],
      [{ match: { team: "hr" }, matchWeight: 1e9 }, "boost.matchWeight"],
      [{ match: { team: "hr" }, matchWeight: -1 }, "boost.matchWeight"],
      [{ matchWeight: 0.2 }, "boost.matchWeight"],
      [{ recency: { halfLifeDays: 0 } }, "boost.recency.halfLifeDays"],
      [{ recency: { halfLifeDays: -3 } }, "boost.recency.halfLifeDays"],
      [{ recency: { halfLifeDays: "30" } }, "boost.recency.halfLifeDays"],
      [{ recency: { halfLifeDays: 1e12 } }, "boost.recency.halfLifeDays"],
      [{ recency: { halfLifeDays: 30, weight: 2 } }, "boost.recency.weight"],
      [{ recency: { weight: 0.2 } }, "boost.recency.halfLifeDays"],
      [{ recency: { halfLifeDays: 30, scale: 2 } }, "boost.recency.scale"],
      [{ match: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])) }, "boost.match"],
      [{ match: { team: { $ne: "hr" } } }, "boost.match.team"],
      [{ match: { _access: "group:hr" } }, "boost.match._access"],
      [{ match: { team: "hr" }, matchWeight: 0.7, recency: { halfLifeDays: 30, weight: 0.7 } }, "boost"],
      ["recent", "boost"],
      [5, "boost"],
      [null, "boost"],
      [[], "boost"],
    ];
    for (const [boost, field] of cases) {
      const r = await c.query(key, { query: "Kestrel", boost });
      expect({ boost, status: r.status }).toEqual({ boost, status: 400 });
      expect(r.body.error.code).toBe("invalid_request");
      const fields = r.body.error.details.map((d: { field: string }) => d.field);
      // A field named, or one inside it (a string is read as an object of characters, then refused).
      const named = fields.some((f: string) => f === field || f.startsWith(`${field}.`));
      expect({ boost, fields, named }).toEqual({ boost, fields, named: true });
    }
  });
});

describe("boost on the source's indexing time, knowledge-base search and MCP", () => {
  test("without a key, the later-indexed of two equal sources overtakes by its indexedAt's decay", async () => {
    const id = await c.pipeline({ name: "Indexed times" });
    const k = await c.key(id);
    const text = "Marlowe foundry invoices are paid within thirty days.";
    const first = (await c.addText(id, text, "first")).id;
    await c.settled(id, first);
    await sleep(1500);
    const second = (await c.addText(id, `${text} `, "second")).id;
    await c.settled(id, second);
    const indexed = new Map((await c.sources(id)).map((s) => [s.id, Date.parse(String(s.indexedAt))]));
    const ask = async (boost?: unknown) => {
      const r = await c.query(k, { query: "Marlowe foundry invoices", mode: "vector", boost });
      expect(r.status).toBe(200);
      return r.body.results as Hit[];
    };
    const plain = await ask();
    expect(plain[0]!.score).toBe(plain[1]!.score);
    const boosted = await ask({ recency: { halfLifeDays: 0.001, weight: 1 } });
    expect(boosted.map((h) => h.metadata.sourceId)).toEqual([second, first]);
    // The query's time cancels out of the two factors' ratio: 0.5 ^ (the sources' age gap / half-life).
    const factor = (s: string) => scoreOf(boosted, s) / scoreOf(plain, s);
    const gap = indexed.get(second)! - indexed.get(first)!;
    expect(gap).toBeGreaterThan(1000);
    expect(factor(first) / factor(second)).toBeCloseTo(0.5 ** (gap / 86_400), 6);
    expect(factor(second)).toBeLessThanOrEqual(1);
  });

  test("knowledge-base search and the MCP search tool take the same boost", async () => {
    const kb = (await c.call("POST", "/api/kb", { name: "Boost KB" })).body.id;
    const form = new FormData();
    form.append("file", new File(["Kestrel vault archive in the knowledge base."], "kb.txt", { type: "text/plain" }));
    const up = await t.handle(
      new Request(`http://localhost/api/kb/${kb}/upload`, {
        method: "POST",
        body: form,
        headers: { cookie: c.cookie },
      }),
    );
    expect(up.status).toBe(202);
    await waitFor("kb ready", async () => (await c.call("GET", `/api/kb/${kb}`)).body.documents[0]?.status === "ready");
    const boost = { recency: { halfLifeDays: 30 } };
    const kbr = await c.call("POST", `/api/kb/${kb}/search`, { query: "Kestrel vault", boost });
    expect(kbr.status).toBe(200);
    expect(kbr.body.results[0].score).toBeGreaterThan(0);
    expect((await c.call("POST", `/api/kb/${kb}/search`, { query: "Kestrel", boost: { recency: {} } })).status).toBe(
      400,
    );

    const m = await mcpSearch({
      query: "Kestrel vault archive",
      mode: "keyword",
      boost: { match: { team: "hr" }, matchWeight: 0.7 },
    });
    expect(m.isError).toBeFalsy();
    expect(JSON.parse(m.content[0].text).results[0].sourceId).toBe(newId);
    const bad = await mcpSearch({ query: "Kestrel", boost: { match: { team: "hr" }, matchWeight: 3 } });
    expect(bad.isError).toBe(true);
  });
});

/** One MCP tools/call of search over POST /mcp (stateless), answered as JSON or as one SSE event. */
async function mcpSearch(args: Record<string, unknown>) {
  const r = await t.call("POST", "/mcp", {
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: args } },
  });
  const message =
    r.body ??
    JSON.parse(
      r.text
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
  return message.result;
}
