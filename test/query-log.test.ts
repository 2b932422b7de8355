/**
 * The opt-in query log (docs/API.md, "Query log and insight"): off by default; on, every
 * door records what was asked and how it went, never the results; rows go after the
 * pipeline's retention (the scheduler's purge, on a clock the test steps) and with the
 * pipeline; RAGD_QUERY_LOG=off refuses to turn it on and records nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Clock, systemClock } from "../src/tools/clock";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";
import { connectHttp, jsonOf } from "./support/mcp";

const DAY = 86_400_000;
const CONTENT = "The brass lantern glows beside the quiet harbour wall of Kestrelby every winter night.";
/** Words of the indexed text that no query below asks for: a row holding them would hold results. */
const RESULT_ONLY = ["harbour", "Kestrelby", "winter"];

/** The system's timers, with a `now` the test moves on by whole days. */
class SteppedClock implements Clock {
  offset = 0;
  now = () => Date.now() + this.offset;
  every = (ms: number, fn: () => void) => systemClock.every(ms, fn);
}

type Row = Record<string, unknown>;

/** The log rows of a pipeline once the gathered entries are written. */
async function rows(t: TestApp, pipelineId: string): Promise<Row[]> {
  await t.services.scheduler.tick("query-log");
  return t.services.db.reader.$client
    .query("SELECT * FROM query_log WHERE collection_id = ? ORDER BY at, id")
    .all(pipelineId) as Row[];
}

async function setup(config: Parameters<typeof makeApp>[0], clock?: Clock) {
  const t = await makeApp({ queryRate: 100_000, queryBurst: 100_000, ...config }, clock);
  const c = await Client.create(t);
  const pipeline = await c.pipeline({ name: "logged", embeddingModel: "builtin" });
  const source = await c.addText(pipeline, CONTENT, "lantern.txt");
  expect((await c.settled(pipeline, source.id)).status).toBe("ready");
  const key = (await c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "backend" })).body.key as string;
  return { t, c, pipeline, sourceId: source.id, key };
}

describe("the query log of a pipeline", () => {
  const clock = new SteppedClock();
  let s: Awaited<ReturnType<typeof setup>>;
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    s = await setup({}, clock);
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => s.t.handle(req) });
  }, 60_000);
  afterAll(async () => {
    server?.stop(true);
    await s?.t.close();
  });

  const playground = (body: Record<string, unknown>) =>
    s.c.call("POST", `/api/rag/pipelines/${s.pipeline}/query`, body);

  test("is off by default: searches leave no row", async () => {
    const p = await s.c.getPipeline(s.pipeline);
    expect(p.queryLog).toEqual({ enabled: false, retentionDays: 30, allowed: true });
    expect((await s.c.query(s.key, { query: "brass lantern" })).status).toBe(200);
    expect((await playground({ query: "brass lantern" })).status).toBe(200);
    expect(await rows(s.t, s.pipeline)).toEqual([]);
    const insight = await s.c.call("GET", `/api/rag/pipelines/${s.pipeline}/insight?hours=24`);
    expect(insight.status).toBe(200);
    expect(insight.body.queries.total).toBe(0);
  });

  test("on, it records each door's searches with their figures and never the results", async () => {
    const on = await s.c.call("PATCH", `/api/rag/pipelines/${s.pipeline}`, {
      queryLog: { enabled: true, retentionDays: 2 },
    });
    expect(on.status).toBe(200);
    expect(on.body.queryLog).toEqual({ enabled: true, retentionDays: 2, allowed: true });
    const filter = { sourceIds: [s.sourceId] };
    const asked = await s.c.query(s.key, { query: "brass lantern", mode: "keyword", filter });
    expect(asked.body.results[0].content).toContain("Kestrelby");
    const owned = await playground({ query: "Brass lantern" });
    expect(owned.body.noRelevantResults).toBe(false);
    const nothing = await s.c.query(s.key, { query: "qqxv zzkw" });
    expect(nothing.body.noRelevantResults).toBe(true);
    const mcp = await connectHttp(`http://127.0.0.1:${server.port}`, s.key);
    jsonOf(await mcp.callTool({ name: "search", arguments: { query: "brass lantern", topK: 3 } }));
    await mcp.close();

    const logged = await rows(s.t, s.pipeline);
    expect(logged.map((r) => [r.door, r.caller, r.query])).toEqual([
      ["query", "backend", "brass lantern"],
      ["playground", "owner", "Brass lantern"],
      ["query", "backend", "qqxv zzkw"],
      ["mcp", "backend", "brass lantern"],
    ]);
    const [key, owner, none] = logged;
    expect(key).toMatchObject({ mode: "keyword", result_count: 1, no_relevant: Number(asked.body.noRelevantResults) });
    expect(JSON.parse(key!.filter as string)).toEqual(filter);
    expect(key!.top_score).toBeGreaterThan(0);
    expect(key!.latency_ms).toBeGreaterThan(0);
    expect(owner).toMatchObject({ mode: "hybrid", filter: null, no_relevant: 0 });
    expect(none!.no_relevant).toBe(1);
    for (const word of RESULT_ONLY) expect(JSON.stringify(logged)).not.toContain(word);

    const insight = (await s.c.call("GET", `/api/rag/pipelines/${s.pipeline}/insight?hours=6`)).body;
    expect(insight.queries.total).toBe(4);
    expect(insight.queries.perHour).toHaveLength(6);
    expect(insight.queries.perHour.reduce((n: number, h: { count: number }) => n + h.count, 0)).toBe(4);
    expect(insight.frequent[0]).toMatchObject({ count: 3 });
    expect(insight.frequent[0].query.toLowerCase()).toBe("brass lantern");
    expect(insight.noRelevant.map((q: { query: string }) => q.query)).toContain("qqxv zzkw");
    expect(insight.ingestion.perMinute.reduce((n: number, m: { chunks: number }) => n + m.chunks, 0)).toBe(1);
    const page = await s.c.call("GET", `/api/rag/pipelines/${s.pipeline}/query-log?pageSize=2`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: { query: string }) => e.query)).toEqual(["brass lantern", "qqxv zzkw"]);
    expect(JSON.stringify(page.body)).not.toContain("Kestrelby");
  });

  test("rows are purged by the scheduler once older than the retention", async () => {
    clock.offset += DAY;
    await s.t.services.scheduler.tick("query-log-purge");
    expect(await rows(s.t, s.pipeline)).toHaveLength(4);
    clock.offset += 1.5 * DAY;
    expect((await s.c.query(s.key, { query: "a later lantern" })).status).toBe(200);
    await s.t.services.scheduler.tick("query-log-purge");
    expect((await rows(s.t, s.pipeline)).map((r) => r.query)).toEqual(["a later lantern"]);
  });

  test("rows, written or not yet, go with the pipeline", async () => {
    await rows(s.t, s.pipeline);
    expect((await s.c.query(s.key, { query: "one more lantern" })).status).toBe(200);
    expect((await s.c.call("DELETE", `/api/rag/pipelines/${s.pipeline}`)).status).toBe(200);
    expect(await rows(s.t, s.pipeline)).toEqual([]);
    const all = s.t.services.db.reader.$client.query("SELECT count(*) AS n FROM query_log").get() as { n: number };
    expect(all.n).toBe(0);
  });
});

describe("RAGD_QUERY_LOG=off", () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup({ queryLog: "off" });
  }, 60_000);
  afterAll(() => s?.t.close());

  test("refuses to turn the log on, on create and on change", async () => {
    const patched = await s.c.call("PATCH", `/api/rag/pipelines/${s.pipeline}`, { queryLog: { enabled: true } });
    expect(patched.status).toBe(403);
    expect(patched.body.error.code).toBe("forbidden");
    expect(patched.body.error.message).toContain("RAGD_QUERY_LOG=off");
    const created = await s.c.call("POST", "/api/rag/pipelines", { name: "x", queryLog: { enabled: true } });
    expect(created.status).toBe(403);
    const p = await s.c.getPipeline(s.pipeline);
    expect(p.queryLog).toEqual({ enabled: false, retentionDays: 30, allowed: false });
  });

  test("records nothing, even for a pipeline turned on before, and the purge removes what was kept", async () => {
    const db = s.t.services.db.reader.$client;
    await s.t.services.db.atomically((tx) => {
      tx.$client.query("UPDATE collections SET query_log = 1 WHERE id = ?").run(s.pipeline);
      tx.$client
        .query(
          "INSERT INTO query_log (id, collection_id, at, query, mode, result_count, latency_ms, door, caller, no_relevant) VALUES ('old', ?, ?, 'kept before', 'hybrid', 0, 1, 'query', 'owner', 1)",
        )
        .run(s.pipeline, new Date().toISOString());
    });
    expect((await s.c.query(s.key, { query: "brass lantern" })).status).toBe(200);
    expect((await rows(s.t, s.pipeline)).map((r) => r.id)).toEqual(["old"]);
    await s.t.services.scheduler.tick("query-log-purge");
    expect(db.query("SELECT count(*) AS n FROM query_log").get()).toEqual({ n: 0 });
  });
});
