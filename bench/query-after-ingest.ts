/**
 * Query latency over HTTP in the first minute after ingestion ends, while the
 * server's upkeep trains the table's new ANN index, next to in-process LanceDB
 * running the same searches on the same table, interleaved:
 *
 *   ./node_modules/.bin/bun bench/query-after-ingest.ts [20000|100000] [topical|flat] [seconds=60]
 *
 * The corpus of bench/query-corpus.ts is written in two parts: upkeep runs after
 * the first 40% (an index trained on them, as an ingestion's last upkeep pass left
 * it); the rest gets only the full-text tail refreshes the server makes during
 * ingestion (which fold the new rows into the vector index too). The binary then
 * starts (ingestion has just ended): its first upkeep pass and, the table having
 * more than doubled, the training of a new index beside the serving one follow. One client asks vector queries back
 * to back for `seconds` from start-up, each followed or preceded by the same
 * search in this process (searchTable with the probe settings of the index serving
 * at that moment). Reported: p50/p95/p99 of both over the whole window and by phase
 * (before, during and after the build), and recall@10 of both against exact search
 * on every tenth query.
 *
 * Measured (`… 100000`, shared 2-core machine, load average about 9), HTTP / in-process
 * over the first minute: p50 27.3 / 25.2 ms (1.08×), p95 4.4× / 3.8× its p50, recall@10
 * 0.981 both, with the build in a child process (14 s, from 19 s after start-up); p50
 * 1.18×, p95 4.8× / 4.6× with the build in the server (17 s). During the build HTTP p95
 * was 158 ms against the reference's 126 (child) and 438 against 239 (in the server).
 * A second run with the child at load average 6–7: p50 29.3 / 27.9 ms (1.05×), p95
 * 2.95× / 3.10× its p50, recall@10 0.963 both; during the build p95 139 / 136 ms.
 * Without the tail refreshes (60,000 rows outside the index until the first pass)
 * every phase was several times slower: p50 284, then 120, then 36 ms.
 * The reference had probed an outgrown index as if it were not (all its share, no lexical
 * candidates), which the server does not: with 500 candidates that made HTTP 1.30× over
 * the minute (before the build 18.3 against 10.1 ms). Probed as the server probes, one
 * run at load 2–3: p50 12.3 / 11.3 ms (1.09×), p95 1.81× / 1.84× its p50, recall@10
 * 0.985 both; before the build 19.0 / 17.5 ms, after it 11.8 / 10.8 ms.
 */
import type { Table } from "@lancedb/lancedb";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { embedBuiltin } from "../src/embed/builtin";
import { vectorIndexes } from "../src/vectors/ann";
import { probesForRows, type AnnProbes } from "../src/vectors/ann-probes";
import { openLance } from "../src/vectors/connection";
import { searchTable } from "../src/vectors/search";
import { VectorStore } from "../src/vectors/store";
import { tempDir } from "../test/support/app";
import { ensureBinary } from "../test/support/binary";
import { DIM, N, SHAPE, exactTopK, load, provision, sentence, serve, stop } from "./query-corpus";
import { percentile, random } from "./support";

const SECONDS = Number(process.argv[4] ?? 60);
const TOP_K = 10;
/** The rows the index of the last upkeep during ingestion was trained on: less than half, so a retrain is due. */
const INDEXED = N * 0.4;

interface Sample {
  at: number;
  http: number;
  raw: number;
  /** Every tenth query: both answers, for recall. */
  check?: { vector: Float32Array; http: string[]; raw: string[] };
}

/** The probe settings of the index serving now, re-read at most once a second. */
function servingProbes(table: Table) {
  let read = 0;
  let probes: AnnProbes | null = null;
  return async () => {
    if (performance.now() - read > 1000) {
      const serving = vectorIndexes(await table.listIndices())[0];
      // As the server probes it: an index the table has outgrown probes less and joins lexical candidates.
      const rows = await table.countRows();
      probes = serving ? probesForRows(serving.trainedRows, serving.indexType, "builtin", rows) : null;
      read = performance.now();
    }
    return probes;
  };
}

const stats = (xs: number[]) => ({
  n: xs.length,
  p50: percentile(xs, 50).toFixed(1),
  p95: percentile(xs, 95).toFixed(1),
  p99: percentile(xs, 99).toFixed(1),
  "p95/p50": (percentile(xs, 95) / percentile(xs, 50)).toFixed(2),
});

async function main(): Promise<void> {
  await ensureBinary();
  const dataDir = tempDir("ragd-bench-after-");
  let server = await serve(dataDir);
  try {
    const { pipelineId, key } = await provision(server);
    await stop(server);
    const all = new Float32Array(N * DIM);
    const ids: string[] = new Array(N);
    console.error(`writing ${N.toLocaleString()} chunks, upkeep after ${INDEXED.toLocaleString()}`);
    await load(dataDir, pipelineId, all, ids, INDEXED);
    server = await serve(dataDir);
    const s = server;
    const conn = await openLance(dataDir);
    const table = await conn.openTable(VectorStore.tableName(pipelineId, 1));
    const probes = servingProbes(table);
    const qrnd = random(7);
    const samples: Sample[] = [];
    const until = s.startedAt + SECONDS * 1000;
    for (let i = 0; performance.now() < until; i++) {
      const text = sentence(qrnd, 3 + Math.floor(qrnd() * 4));
      const vector = embedBuiltin(text);
      const p = await probes();
      const timeHttp = async () => {
        const t0 = performance.now();
        const res = await fetch(`${s.url}/api/rag/query`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ query: text, topK: TOP_K, mode: "vector" }),
        });
        if (res.status !== 200) throw new Error(`query: ${res.status} ${await res.text()}`);
        const body = (await res.json()) as { results: { metadata: { sourceId: string; chunkIndex: number } }[] };
        return {
          ms: performance.now() - t0,
          ids: body.results.map((r) => `${r.metadata.sourceId}:${r.metadata.chunkIndex}`),
        };
      };
      const timeRaw = async () => {
        const t0 = performance.now();
        const hits = await searchTable(table, { mode: "vector", text, vector, topK: TOP_K }, p);
        return { ms: performance.now() - t0, ids: hits.map((h) => `${h.documentId}:${h.chunkIndex}`) };
      };
      const [h, r] =
        i % 2
          ? await timeRaw().then(async (r) => [await timeHttp(), r])
          : await timeHttp().then(async (h) => [h, await timeRaw()]);
      const sample: Sample = { at: performance.now() - s.startedAt, http: h!.ms, raw: r!.ms };
      if (i % 10 === 0) sample.check = { vector, http: h!.ids, raw: r!.ids };
      samples.push(sample);
    }
    const load1 = loadavg().map((x) => x.toFixed(2));
    table.close();
    conn.close();
    // When the server's build started and ended, from its log (ms since start-up).
    const lines = s.logs().split("\n");
    const logged = (msg: string) => {
      const line = lines.find((l) => l.includes(`"msg":"${msg}"`));
      return line ? Date.parse(JSON.parse(line).time) - (performance.timeOrigin + s.startedAt) : Infinity;
    };
    const [buildFrom, buildTo] = [logged("building vector index"), logged("vector index built")];
    let httpFound = 0;
    let rawFound = 0;
    let checked = 0;
    for (const x of samples) {
      if (!x.check) continue;
      const truth = exactTopK(all, ids, x.check.vector, TOP_K);
      httpFound += x.check.http.filter((id) => truth.has(id)).length;
      rawFound += x.check.raw.filter((id) => truth.has(id)).length;
      checked += TOP_K;
    }
    const phase = (from: number, to: number) => samples.filter((x) => x.at >= from && x.at < to);
    const rows: Record<string, ReturnType<typeof stats>> = {};
    for (const [name, xs] of [
      [`0–${SECONDS} s`, samples],
      ["before the build", phase(0, buildFrom)],
      ["during the build", phase(buildFrom, buildTo)],
      ["after the build", phase(buildTo, Infinity)],
    ] as const) {
      if (xs.length === 0) continue;
      rows[`HTTP, ${name}`] = stats(xs.map((x) => x.http));
      rows[`in-process, ${name}`] = stats(xs.map((x) => x.raw));
    }
    console.log(
      `\nquery-after-ingest: ${N.toLocaleString()} ${SHAPE} chunks (index on ${INDEXED.toLocaleString()}), vector, topK ${TOP_K}, first ${SECONDS} s after start-up; build ${(buildFrom / 1000).toFixed(1)}–${(buildTo / 1000).toFixed(1)} s; load average ${load1.join(" ")}`,
    );
    console.table(rows);
    const http = samples.map((x) => x.http);
    const raw = samples.map((x) => x.raw);
    console.table({
      "p50 HTTP / p50 in-process": `${(percentile(http, 50) / percentile(raw, 50)).toFixed(2)}×`,
      "p95 HTTP / p50 HTTP": `${(percentile(http, 95) / percentile(http, 50)).toFixed(2)}×`,
      "recall@10 HTTP": (httpFound / checked).toFixed(3),
      "recall@10 in-process": (rawFound / checked).toFixed(3),
    });
  } finally {
    await stop(server).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
