/**
 * The query options of docs/API.md, Query (expand, highlights, groupBy, facets) through
 * the doors a user knocks on: POST /api/rag/query with a key, knowledge-base search and
 * the MCP `search` tool; real SQLite and LanceDB. Without an option the answer is as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { wordsAt, wordsOf } from "../src/text/words";
import { bytesOf, Client, waitFor } from "./support/ingest";

let t: TestApp;
let c: Client;
let pipelineId: string;
let key: string;
let textId: string;
let fileId: string;

const section = (topic: string, i: number) =>
  `Paragraph ${i} about ${topic}: the committee reviewed budgets, rooms and timetables in detail.`;
const sections = (topic: string, n: number) => Array.from({ length: n }, (_, i) => section(topic, i)).join("\n\n");
const FACT = "The archive of Project Kestrel is stored in vault nineteen under the library.";
const TEXT = `${sections("gardening", 12)}\n\n${FACT}\n\n${sections("shipping", 12)}`;
const FILE_FACT = "Invoices from the Marlowe foundry are paid within thirty days.";
const FILE_TEXT = `${sections("weather", 10)}\n\n${FILE_FACT}\n\n${sections("music", 10)}`;

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  pipelineId = await c.pipeline({ name: "Options", chunkSize: 200, chunkOverlap: 40 });
  key = await c.key(pipelineId);
  textId = (await c.addText(pipelineId, TEXT, "Handbook")).id;
  const { created, put } = await c.upload(pipelineId, "foundry.txt", bytesOf(FILE_TEXT));
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${put.text}`);
  fileId = created.id;
  const settled = await c.allSettled(pipelineId, 60_000);
  if (settled.some((s) => s.status !== "ready")) throw new Error(`not ready: ${JSON.stringify(settled)}`);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

/** A query that must answer 200. */
async function query(body: Record<string, unknown>) {
  const r = await c.query(key, body);
  if (r.status !== 200) throw new Error(`query: ${r.status} ${r.text}`);
  return r.body;
}

/** One MCP tools/call over POST /mcp (stateless), answered as JSON or as one SSE event. */
async function mcpCall(name: string, args: Record<string, unknown>) {
  const r = await t.call("POST", "/mcp", {
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
  });
  const message =
    r.body ??
    JSON.parse(
      r.text
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
  const result = message.result;
  if (result.isError) throw new Error(`tool error: ${result.content[0].text}`);
  return JSON.parse(result.content[0].text);
}

type Hit = {
  content: string;
  metadata: { sourceId: string; start: number; end: number; chunkIndex: number };
  context?: { before: string; after: string; start: number; end: number };
  highlights?: [number, number][];
};

describe("expand", () => {
  test("{chars: N}: N characters of the stored text each side, cut at the source's ends", async () => {
    const body = await query({ query: "Project Kestrel archive vault", topK: 5, expand: { chars: 150 } });
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results as Hit[]) {
      if (r.metadata.sourceId !== textId) continue;
      const { start, end } = r.metadata;
      expect(r.context).toEqual({
        before: TEXT.slice(Math.max(0, start - 150), start),
        after: TEXT.slice(end, Math.min(TEXT.length, end + 150)),
        start: Math.max(0, start - 150),
        end: Math.min(TEXT.length, end + 150),
      });
    }
    expect((body.results as Hit[]).some((r) => r.metadata.sourceId === textId && r.content.includes("Kestrel"))).toBe(
      true,
    );
  });

  test("{chunks: N}: from the N-th chunk before to the N-th after, agreeing with MCP read", async () => {
    for (const [q, id] of [
      ["Project Kestrel archive vault", textId],
      ["Marlowe foundry invoices", fileId],
    ] as const) {
      const body = await query({ query: q, topK: 3, expand: { chunks: 1 }, filter: { sourceIds: [id] } });
      const hit = (body.results as Hit[])[0]!;
      const ctx = hit.context!;
      expect(ctx.start).toBeLessThan(hit.metadata.start);
      expect(ctx.end).toBeGreaterThan(hit.metadata.end);
      // The context is the neighbours' span: more than the hit's own chunk, less than three chunks' worth.
      expect(ctx.end - ctx.start).toBeLessThanOrEqual(3 * 200 + 10);
      const read = await mcpCall("read", { sourceId: id, start: ctx.start, end: ctx.end });
      expect(read.text).toBe(ctx.before + hit.content + ctx.after);
      if (id === textId) expect(read.text).toBe(TEXT.slice(ctx.start, ctx.end));
      else expect(read.text.replace(/\s+/g, " ")).toBe(FILE_TEXT.slice(ctx.start, ctx.end).replace(/\s+/g, " "));
    }
  });

  test("the first chunk has no text before it", async () => {
    const body = await query({
      query: "Paragraph 0 about gardening",
      mode: "keyword",
      topK: 10,
      expand: { chars: 50 },
    });
    const first = (body.results as Hit[]).find((r) => r.metadata.sourceId === textId && r.metadata.start === 0)!;
    expect(first.context).toMatchObject({ before: "", start: 0 });
  });

  test("on knowledge-base search and the MCP search tool too", async () => {
    const kb = (await c.call("POST", "/api/kb", { name: "Options KB" })).body.id;
    const form = new FormData();
    form.append("file", new File([TEXT], "handbook.txt", { type: "text/plain" }));
    const up = await t.handle(
      new Request(`http://localhost/api/kb/${kb}/upload`, {
        method: "POST",
        body: form,
        headers: { cookie: c.cookie },
      }),
    );
    expect(up.status).toBe(202);
    await waitFor("kb ready", async () => (await c.call("GET", `/api/kb/${kb}`)).body.documents[0]?.status === "ready");
    const r = await c.call("POST", `/api/kb/${kb}/search`, { query: "Kestrel vault", expand: { chars: 40 } });
    expect(r.status).toBe(200);
    const hit = r.body.results[0] as Hit;
    expect(hit.context!.before + hit.content + hit.context!.after).toBe(
      TEXT.slice(hit.context!.start, hit.context!.end),
    );
    const m = await mcpCall("search", { query: "Kestrel vault", expand: { chars: 40 } });
    const top = m.results[0];
    expect(top.context.before + top.text + top.context.after).toBe(TEXT.slice(top.context.start, top.context.end));
  });

  test("without it no result has context; out-of-range values are 400", async () => {
    const plain = await query({ query: "Kestrel" });
    for (const r of plain.results) expect(Object.keys(r).sort()).toEqual(["content", "metadata", "score"]);
    for (const expand of [{ chars: 0 }, { chars: 5001 }, { chunks: 6 }, { chars: 10, chunks: 1 }, {}, { lines: 3 }]) {
      const r = await c.query(key, { query: "Kestrel", expand });
      expect(r.status).toBe(400);
    }
  });
});

/** The words of content that the highlights mark. */
const marked = (r: Hit) => r.highlights!.map(([s, e]) => r.content.slice(s, e));

describe("highlights", () => {
  test("the ranges of the query's terms in content, after stemming; stop words are not marked", async () => {
    const body = await query({ query: "the archives of Kestrel", topK: 3, highlights: true, mode: "keyword" });
    const hit = (body.results as Hit[]).find((r) => r.content.includes("Kestrel"))!;
    // "archive" is the stem of "archives"; "the" and "of" are English stop words.
    expect(marked(hit)).toEqual(["archive", "Kestrel"]);
    for (const [s, e] of hit.highlights!) expect(s).toBeLessThan(e);
  });

  test("Chinese words are matched as the word breaker cut them", async () => {
    const id = await c.pipeline({ name: "Chinese" });
    const zhKey = await c.key(id);
    await c.addText(id, "北京是中国的首都，也是一座历史悠久的城市。", "zh");
    await c.allSettled(id);
    const r = await c.query(zhKey, { query: "中国首都", highlights: true });
    expect(r.status).toBe(200);
    const hit = r.body.results[0] as Hit;
    expect(marked(hit)).toEqual(expect.arrayContaining(["中国", "首都"]));
    expect(marked(hit)).not.toContain("北京");
  });

  test("over MCP the ranges are of the result's text", async () => {
    const m = await mcpCall("search", { query: "Marlowe invoices", highlights: true });
    const top = m.results.find((r: { text: string }) => r.text.includes("Marlowe"));
    const words = top.highlights.map(([s, e]: [number, number]) => top.text.slice(s, e));
    expect(words).toEqual(["Invoices", "Marlowe"]);
  });
});

test("wordsAt finds wordsOf's words, each where it stands", () => {
  const text = "Hello, 世界的首都 is Tōkyō; カタカナー mixed漢字text 한강이 ไทยภาษา end.";
  const at = wordsAt(text);
  expect(at.map(({ text, script }) => ({ text, script }))).toEqual(wordsOf(text));
  for (const w of at) expect(text.slice(w.start, w.end)).toBe(w.text);
});

describe("groupBy source", () => {
  let groupKey: string;
  const topics = ["lighthouse keepers", "lighthouse lamps", "lighthouse storms", "lighthouse maps"];

  beforeAll(async () => {
    const id = await c.pipeline({ name: "Grouped", chunkSize: 120, chunkOverlap: 0 });
    groupKey = await c.key(id);
    for (const [i, topic] of topics.entries())
      await c.addText(id, Array.from({ length: 14 }, (_, j) => `Note ${j} of book ${i} on ${topic}.`).join("\n\n"));
    await c.allSettled(id);
  });

  const ask = async (body: Record<string, unknown>) => {
    const r = await c.query(groupKey, { query: "lighthouse", mode: "keyword", ...body });
    expect(r.status).toBe(200);
    return r.body.results as Hit[];
  };

  test("one chunk per source by default, topK sources", async () => {
    const plain = await ask({ topK: 3 });
    const grouped = await ask({ topK: 3, groupBy: "source" });
    expect(grouped).toHaveLength(3);
    expect(new Set(grouped.map((r) => r.metadata.sourceId)).size).toBe(3);
    // The best source's best chunk is the plain search's first.
    expect(grouped[0]).toEqual(plain[0]!);
  });

  test("perSource: N chunks of each source, a source's together, best source first", async () => {
    const grouped = await ask({ topK: 2, groupBy: "source", perSource: 3 });
    expect(grouped).toHaveLength(6);
    const ids = grouped.map((r) => r.metadata.sourceId);
    expect(new Set(ids.slice(0, 3)).size).toBe(1);
    expect(new Set(ids.slice(3)).size).toBe(1);
    expect(ids[0]).not.toBe(ids[3]);
    const scores = grouped.map((r) => (r as unknown as { score: number }).score);
    expect(scores[0]).toBeGreaterThanOrEqual(scores[3]!);
  });

  test("fewer sources than topK give fewer groups; perSource without groupBy and out of range are 400", async () => {
    expect(await ask({ topK: 10, groupBy: "source", perSource: 2 })).toHaveLength(8);
    for (const body of [{ perSource: 2 }, { groupBy: "source", perSource: 11 }, { groupBy: "document" }])
      expect((await c.query(groupKey, { query: "lighthouse", ...body })).status).toBe(400);
    const m = await mcpCall("search", { query: "Kestrel Marlowe paragraph", groupBy: "source", topK: 5 });
    expect(m.results).toHaveLength(2);
  });
});

describe("facets", () => {
  let facetKey: string;
  let facetPipeline: string;
  const add = async (content: string, metadata: Record<string, unknown>) => {
    const r = await c.addSource(facetPipeline, { type: "text", content, metadata });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };

  beforeAll(async () => {
    facetPipeline = await c.pipeline({ name: "Facets" });
    facetKey = await c.key(facetPipeline);
    await add("Leave policy for every employee.", { team: "hr", year: 2024, tags: ["policy", "leave"] });
    await add("Hiring policy and interviews.", { team: "hr", year: 2025, tags: ["policy"] });
    await add("Contract review policy.", { team: "legal", year: 2024, draft: true });
    await c.allSettled(facetPipeline);
  });

  const ask = async (body: Record<string, unknown>) => {
    const r = await c.query(facetKey, { query: "policy", ...body });
    expect(r.status).toBe(200);
    return r.body;
  };

  test("counts of each key's values among the chunks the filter keeps, most first", async () => {
    const all = await ask({ facets: ["team", "year", "tags", "draft", "missing"] });
    expect(all.facets).toEqual({
      team: [
        { value: "hr", count: 2 },
        { value: "legal", count: 1 },
      ],
      year: [
        { value: 2024, count: 2 },
        { value: 2025, count: 1 },
      ],
      tags: [
        { value: "policy", count: 2 },
        { value: "leave", count: 1 },
      ],
      draft: [{ value: true, count: 1 }],
      missing: [],
    });
    expect(all.facetsTruncated).toBeUndefined();
    const hr = await ask({ facets: ["year"], filter: { metadata: { team: "hr" } } });
    expect(hr.facets).toEqual({
      year: [
        { value: 2024, count: 1 },
        { value: 2025, count: 1 },
      ],
    });
    expect((await ask({ facets: ["team"], filter: { sourceIds: [] } })).facets).toEqual({ team: [] });
  });

  test("a write changes the counts (the cache is per table version); without facets no facets field", async () => {
    expect((await ask({ facets: ["team"] })).facets.team).toHaveLength(2);
    await add("Engineering policy on call.", { team: "eng" });
    await c.allSettled(facetPipeline);
    expect((await ask({ facets: ["team"] })).facets.team).toContainEqual({ value: "eng", count: 1 });
    expect(Object.keys(await ask({})).sort()).toEqual([
      "noRelevantResults",
      "pipelineId",
      "query",
      "queryLanguage",
      "results",
      "topK",
    ]);
  });

  test("more than 10 keys, a bad key name and _access are 400; MCP search counts too", async () => {
    const many = Array.from({ length: 11 }, (_, i) => `k${i}`);
    for (const facets of [many, ["bad key"], ["_access"]])
      expect((await c.query(facetKey, { query: "policy", facets })).status).toBe(400);
    const r = await c.t.call("POST", "/mcp", {
      headers: { authorization: `Bearer ${facetKey}`, accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search", arguments: { query: "policy", facets: ["year"] } },
      },
    });
    const message =
      r.body ??
      JSON.parse(
        r.text
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6),
      );
    expect(JSON.parse(message.result.content[0].text).facets.year).toContainEqual({ value: 2024, count: 2 });
  });
});
