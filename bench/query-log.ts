/**
 * What the query log costs a search (docs/API.md, "Query log and insight"): POST
 * /api/rag/query through the app (`app.handle`, a real key, real SQLite and LanceDB), on
 * one pipeline of the built-in embedder, with the pipeline's log off and on, in turns:
 *
 *   ./node_modules/.bin/bun bench/query-log.ts [--sources 200] [--queries 400] [--rounds 3]
 *
 * Each round asks the same `queries` keyword and hybrid queries once with the log off and
 * once on (who goes first alternates), and prints p50 and p95 of each, the ratio of the
 * p50s, and how long the query-log job then took to write the round's entries.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "../src/app";
import { defaultConfig } from "../src/config";
import { createLogger } from "../src/log";
import { closeServices, createServices } from "../src/services";

const { values } = parseArgs({
  options: { sources: { type: "string" }, queries: { type: "string" }, rounds: { type: "string" } },
});
const SOURCES = Number(values.sources ?? 200);
const QUERIES = Number(values.queries ?? 400);
const ROUNDS = Number(values.rounds ?? 3);
const WORDS = "harbour lantern copper meadow quarry saffron timber violet walnut zephyr orchard beacon".split(" ");

const dataDir = mkdtempSync(join(tmpdir(), "ragd-bench-qlog-"));
const config = { ...defaultConfig(), dataDir, log: "error" as const, workers: 2, queryRate: 1e6, queryBurst: 1e6 };
const services = await createServices(
  config,
  createLogger("error", () => {}),
);
const app = buildApp(services);
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const init: RequestInit = { method, headers: { ...headers, "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await app.handle(new Request(`http://localhost${path}`, init));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

const signup = await call("POST", "/api/auth/signup", {
  email: "bench@example.com",
  password: "correct horse battery",
});
const cookie = { cookie: signup.headers.get("set-cookie")!.split(";")[0]! };
const pipeline = (await call("POST", "/api/rag/pipelines", { name: "bench", embeddingModel: "builtin" }, cookie)).body;
const path = `/api/rag/pipelines/${pipeline.id}`;
const text = (i: number) =>
  Array.from({ length: 120 }, (_, j) => `${WORDS[(i * 7 + j) % WORDS.length]}${(i + j) % 50}`).join(" ");
for (let i = 0; i < SOURCES; i++) await call("POST", `${path}/sources`, { type: "text", content: text(i) }, cookie);
for (;;) {
  const p = (await call("GET", path, undefined, cookie)).body;
  if (p.status === "ready") break;
  await Bun.sleep(200);
}
const key = (await call("POST", `${path}/keys`, { name: "bench" }, cookie)).body.key;
const bearer = { authorization: `Bearer ${key}` };
const queries = Array.from({ length: QUERIES }, (_, i) => ({
  query: `${WORDS[i % WORDS.length]} ${WORDS[(i * 5 + 3) % WORDS.length]}${i % 50}`,
  mode: i % 2 ? "keyword" : "hybrid",
}));

async function timed(on: boolean): Promise<number[]> {
  await call("PATCH", path, { queryLog: { enabled: on } }, cookie);
  const ms: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const r = await call("POST", "/api/rag/query", q, bearer);
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`query: ${r.status}`);
  }
  return ms.sort((a, b) => a - b);
}
const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;

await timed(false); // warm caches
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? [true, false] : [false, true];
  const got = new Map<boolean, number[]>();
  for (const on of order) got.set(on, await timed(on));
  const t0 = performance.now();
  await services.scheduler.tick("query-log");
  const flushMs = performance.now() - t0;
  const [off, on] = [got.get(false)!, got.get(true)!];
  console.log(
    `round ${round + 1}: off p50 ${pct(off, 0.5).toFixed(2)} ms p95 ${pct(off, 0.95).toFixed(2)} ms | ` +
      `on p50 ${pct(on, 0.5).toFixed(2)} ms p95 ${pct(on, 0.95).toFixed(2)} ms | ` +
      `on/off p50 ${(pct(on, 0.5) / pct(off, 0.5)).toFixed(3)} | write of ${QUERIES} entries ${flushMs.toFixed(1)} ms`,
  );
}
const rows = services.db.reader.$client.query("SELECT count(*) AS n FROM query_log").get() as { n: number };
console.log(`rows logged: ${rows.n}`);
await closeServices(services);
rmSync(dataDir, { recursive: true, force: true });
