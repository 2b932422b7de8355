/**
 * What ragd tells an operator about ingestion, through the compiled binary: the
 * /metrics series (queue depth, outcomes by type, stage durations, embedding calls
 * and errors by backend, LanceDB tables, memory) and one log line per source outcome
 * that never carries the source's content.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { tempDir } from "./support/app";
import { ensureBinary, runCli, startBinary, type RunningBinary } from "./support/binary";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { waitFor } from "./support/wait";

let server: RunningBinary;
let ollama: FakeOllama;
let dataDir: string;
const jar: { cookie?: string } = {};
/** Written into every text source; must never reach the log. */
const MARKER = "Zanzibar-quokka-7731";

beforeAll(async () => {
  await ensureBinary();
  ollama = await startFakeOllama({ models: { "all-minilm": 384 } });
  dataDir = tempDir("ragd-metrics-");
  const user = ["--email", "ops@example.com", "--password", "a-long-password", "--tier", "unlimited", "--init"];
  expect(runCli(["user", "create", ...user], { RAGD_DATA_DIR: dataDir }).code).toBe(0);
  // A name on the deny list passes at creation (no lookup is made then) and is refused at its fetch.
  const env = { RAGD_OLLAMA_URL: ollama.url, RAGD_WORKERS: "1", RAGD_FETCH_DENY: "intranet.test" };
  server = await startBinary(dataDir, env);
  const login = await server.http("/api/auth/login", {
    method: "POST",
    json: { email: "ops@example.com", password: "a-long-password" },
    jar,
  });
  expect(login.status).toBe(200);
}, 120_000);

afterAll(async () => {
  server?.proc.kill("SIGKILL");
  await ollama?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function scrape(): Promise<string> {
  return String((await server.http("/metrics")).body);
}

/** The value of one series, by its exact name and labels in order; undefined when absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function pipeline(name: string, embeddingModel: string): Promise<string> {
  const p = await server.http("/api/rag/pipelines", { method: "POST", json: { name, embeddingModel }, jar });
  expect(p.status).toBe(201);
  return p.body.id;
}

async function addSource(pipelineId: string, body: Record<string, unknown>): Promise<string> {
  const s = await server.http(`/api/rag/pipelines/${pipelineId}/sources`, { method: "POST", json: body, jar });
  expect(s.status).toBe(201);
  return s.body.id;
}

async function settled(pipelineId: string, sourceId: string, status: "ready" | "failed") {
  return waitFor(`source ${sourceId} ${status}`, async () => {
    const s = await server.http(`/api/rag/pipelines/${pipelineId}/sources/${sourceId}`, { jar });
    return s.body.status === status ? s.body : null;
  });
}

const text = (i: number) => ({
  type: "text",
  name: `note ${i}`,
  content: `Note ${i}. ${MARKER} ${"The quarterly report covers revenue and hiring. ".repeat(40)}`,
});

test("ingestion moves the queue, outcome, stage, embedding, table and memory series", async () => {
  const before = await scrape();
  expect(value(before, 'ragd_ingest_queue_depth{status="queued"}')).toBe(0);
  expect(value(before, 'ragd_ingest_queue_depth{status="processing"}')).toBe(0);
  expect(value(before, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);

  // Three texts with the built-in model, and a url that the fetch rules refuse.
  const builtin = await pipeline("Builtin", "builtin");
  const texts = [
    await addSource(builtin, text(1)),
    await addSource(builtin, text(2)),
    await addSource(builtin, text(3)),
  ];
  const refused = await addSource(builtin, { type: "url", name: "intranet", url: "http://intranet.test/page" });
  const chunks = (await Promise.all(texts.map((id) => settled(builtin, id, "ready")))).reduce(
    (n, s) => n + s.chunkCount,
    0,
  );
  await settled(builtin, refused, "failed");

  // With Ollama: one refused for good (400), one that fails once (503s) and then succeeds.
  const remote = await pipeline("Remote", "ollama/all-minilm");
  ollama.failNext(1, 400);
  const bad = await addSource(remote, text(4));
  await settled(remote, bad, "failed");
  ollama.failNext(3, 503);
  const later = await addSource(remote, text(5));
  await waitFor(
    "a task waiting for its retry",
    async () => value(await scrape(), 'ragd_ingest_queue_depth{status="waiting"}') === 1,
  );
  await settled(remote, later, "ready");

  const m = await scrape();
  expect(value(m, 'ragd_ingest_sources_total{outcome="ready",type="text"}')).toBe(4);
  expect(value(m, 'ragd_ingest_sources_total{outcome="failed",type="url"}')).toBe(1);
  expect(value(m, 'ragd_ingest_sources_total{outcome="failed",type="text"}')).toBe(1);
  expect(value(m, 'ragd_ingest_sources_total{outcome="retry",type="text"}')).toBe(1);
  expect(value(m, 'ragd_ingest_queue_depth{status="waiting"}')).toBe(0);
  // Every text went through chunk and embed; the refused url through fetch; rows were written for the ready ones.
  expect(value(m, 'ragd_ingest_stage_duration_seconds_count{stage="chunk"}')).toBe(6);
  expect(value(m, 'ragd_ingest_stage_duration_seconds_count{stage="embed"}')).toBe(6);
  expect(value(m, 'ragd_ingest_stage_duration_seconds_count{stage="fetch"}')).toBe(1);
  expect(value(m, 'ragd_ingest_stage_duration_seconds_count{stage="write"}')).toBe(4);
  expect(value(m, 'ragd_ingest_stage_duration_seconds_bucket{stage="chunk",le="+Inf"}')).toBe(6);
  expect(value(m, 'ragd_embedding_calls_total{backend="builtin"}')).toBeGreaterThanOrEqual(3);
  expect(value(m, 'ragd_embedding_errors_total{backend="builtin"}')).toBe(0);
  // The 400, and the retried task's failed call (its three 503s are one call that retried inside).
  expect(value(m, 'ragd_embedding_errors_total{backend="ollama"}')).toBe(2);
  expect(value(m, 'ragd_embedding_calls_total{backend="ollama"}')).toBe(3);

  // A query embeds its text too, with the pipeline's backend.
  const key = await server.http(`/api/rag/pipelines/${builtin}/keys`, { method: "POST", json: { name: "app" }, jar });
  const calls = value(m, 'ragd_embedding_calls_total{backend="builtin"}')!;
  const q = await server.http("/api/rag/query", {
    method: "POST",
    json: { query: "quarterly revenue" },
    headers: { authorization: `Bearer ${key.body.key}` },
  });
  expect(q.status).toBe(200);
  expect(value(await scrape(), 'ragd_embedding_calls_total{backend="builtin"}')).toBe(calls + 1);

  // LanceDB: the built-in pipeline's table holds its chunks; upkeep then builds its full-text index (on the analysed terms).
  const rows = `ragd_lancedb_table_rows{collection="${builtin}",generation="1"}`;
  // Both pipelines' tables, each counted once its first rows are committed (table stats are
  // cached for a few seconds, so a scrape may show the other table a little later).
  const after = await waitFor(
    "the table's rows and both tables in /metrics",
    async () => {
      const m = await scrape();
      return value(m, rows) === chunks && value(m, "ragd_lancedb_tables") === 2 ? m : null;
    },
    30_000,
  );
  expect(value(after, `ragd_lancedb_table_bytes{collection="${builtin}",generation="1"}`)).toBeGreaterThan(
    chunks * 384 * 4,
  );
  expect(
    value(after, `ragd_lancedb_table_fragments{collection="${builtin}",generation="1",size="all"}`),
  ).toBeGreaterThan(0);
  expect(value(after, "ragd_lancedb_tables")).toBe(2);
  const fts = new RegExp(
    `^ragd_lancedb_index_indexed_rows\\{collection="${builtin}",generation="1",column="terms",type="\\w+"\\} ${chunks}$`,
    "m",
  );
  await waitFor("the full-text index in /metrics", async () => fts.test(await scrape()), 40_000, 500);
}, 120_000);

test("the log has one line per source outcome, with the reason of a failure and never the content", () => {
  const lines = server
    .logs()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const outcomes = lines.filter((l) => String(l.msg).startsWith("source "));
  expect(outcomes.filter((l) => l.msg === "source ready")).toHaveLength(4);
  expect(outcomes.every((l) => l.level === "info" && typeof l.sourceId === "string")).toBe(true);
  const failed = outcomes.filter((l) => l.msg === "source failed");
  expect(failed.map((l) => l.type).sort()).toEqual(["text", "url"]);
  expect(failed.find((l) => l.type === "url")!.error).toMatch(/deny list/);
  expect(outcomes.filter((l) => l.msg === "source will be retried")).toHaveLength(1);
  expect(server.logs()).not.toContain(MARKER);
});
