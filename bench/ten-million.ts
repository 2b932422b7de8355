/**
 * Millions of chunks on one machine, as an outsider would build them (issue 43, item 4):
 * the compiled binary, a pipeline of a stand-in Ollama model (bench/large-corpus.ts's
 * vectors, 384 dimensions), and every document sent through POST /api/rag/documents/batch
 * (500 documents of ten chunks a request, two in flight).
 *
 *   bun bench/ten-million.ts [--chunks 10000000] [--dir DIR] [--queries-only] [--resume]
 *     [--no-probe] [--index-cache-mb 512] [--recall 30]
 *
 * Reported: ingestion rate (sent → every source ready), the time until the vector and
 * full-text indexes cover every row (the server's own upkeep builds them), disk use, the
 * server's resident memory (peak while ingesting and while serving), one client's query
 * latency throughout (a vector or hybrid query a second: p50, p99, max per phase), and on
 * the settled table vector, keyword and hybrid p50/p95 (200 queries each, after 20), recall@10
 * of vector queries against exact search (LanceDB's flat scan past the index; `--recall`
 * queries, each a scan of every vector), and 32 clients' throughput; the server runs with
 * `--index-cache-mb` of index cache (RAGD_INDEX_CACHE_MB).
 * With --dir the data directory is kept, and --queries-only measures it again; --resume goes on
 * with a run that stopped part way (its ingestion figures then mean little). --no-probe
 * sends no query until the indexes are caught up: a bulk load that nobody searches yet. The
 * server's log is kept as DIR/server.log.
 */
import { existsSync, mkdirSync, readFileSync, statfsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { tempDir } from "../test/support/app";
import { ensureBinary, type RunningBinary } from "../test/support/binary";
import { startFakeOllama } from "../test/support/fake-ollama";
import { flatTopK } from "./kept-corpus";
import { CHUNKS_PER_DOC, DIM, largeCorpus } from "./large-corpus";
import { indexCoverage, LatencyProbe, loggedQueryTimes, rssMb, settledQueries } from "./large-serving";
import { cpuByThread, cpuSeconds, pooled, random, startRagd, threadCpu } from "./support";

const { values: args } = parseArgs({
  options: {
    chunks: { type: "string", default: "10000000" },
    dir: { type: "string" },
    "queries-only": { type: "boolean", default: false },
    resume: { type: "boolean", default: false },
    "index-cache-mb": { type: "string", default: "512" },
    recall: { type: "string", default: "30" },
    "no-probe": { type: "boolean", default: false },
  },
});
const CHUNKS = Number(args.chunks);
const DOCS_PER_BATCH = 500;
const MODEL = "bench-dense";
const dataDir = args.dir ?? tempDir("ragd-bench-10m-");
const statePath = join(dataDir, "bench-state.json");
const corpus = largeCorpus(CHUNKS);
const free = () => {
  const s = statfsSync(dataDir);
  return s.bavail * s.bsize;
};
const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface State {
  pipelineId: string;
  key: string;
  /** The account that made the pipeline (the bench's password), which a resumed run signs in as. */
  email?: string;
}

async function main(): Promise<void> {
  await ensureBinary();
  mkdirSync(dataDir, { recursive: true });
  const ollama = await startFakeOllama({ models: { [MODEL]: DIM }, vectorOf: { [MODEL]: corpus.vector } });
  // The server refuses writes with 4 GB left, so a run too large for the disk stops there (and says so).
  const env = {
    RAGD_OLLAMA_URL: ollama.url,
    RAGD_QUERY_RATE: "1000000",
    RAGD_QUERY_BURST: "1000000",
    RAGD_MIN_FREE_MB: "4000",
    RAGD_INDEX_CACHE_MB: args["index-cache-mb"],
  };
  const freeAtStart = free();
  const { server, jar, email } = await startRagd(dataDir, env);
  try {
    const state =
      args["queries-only"] || args.resume ? await signedIn(server, jar) : await provision(server, jar, email);
    console.error(`data directory ${dataDir}, pipeline ${state.pipelineId}`);
    const probe = new LatencyProbe(server, state.key, corpus, !args["no-probe"]);
    if (!args["queries-only"]) await ingest(server, jar, state, probe, freeAtStart);
    await probe.stop();
    const cpu = process.cpuUsage();
    console.log(
      `stand-in model: ${JSON.stringify(ollama.stats())}; bench CPU ${s1((cpu.user + cpu.system) / 1000)}, ` +
        `server CPU ${cpuSeconds(server.proc.pid).toFixed(1)} s`,
    );
    console.log(`\nlatency of one client's query a second (${CHUNKS.toLocaleString()} chunks):`);
    console.table(probe.report());
    console.log(`the same queries as the server logged them: ${loggedQueryTimes(server.logs())}`);
    await serve(server, state, freeAtStart);
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    writeFileSync(join(dataDir, "server.log"), server.logs());
    await ollama.stop();
  }
}

function readState(): State {
  if (!existsSync(statePath)) throw new Error(`--queries-only needs a --dir an earlier run kept (${statePath})`);
  return JSON.parse(readFileSync(statePath, "utf8"));
}

/** The kept state, with the jar signed in as the account that made its pipeline. */
async function signedIn(server: RunningBinary, jar: { cookie?: string }): Promise<State> {
  const state = readState();
  if (state.email === undefined) return state;
  const json = { email: state.email, password: "benchmark-password" };
  const r = await server.http("/api/auth/login", { method: "POST", json, jar });
  if (r.status !== 200) throw new Error(`sign-in as ${state.email}: ${r.status}`);
  return state;
}

async function provision(server: RunningBinary, jar: { cookie?: string }, email: string): Promise<State> {
  const pipeline = await server.http("/api/rag/pipelines", {
    method: "POST",
    jar,
    json: {
      name: "ten-million",
      embeddingModel: MODEL,
      chunkingStrategy: "recursive",
      chunkSize: 200,
      chunkOverlap: 0,
    },
  });
  if (pipeline.status !== 201) throw new Error(`pipeline: ${pipeline.status} ${JSON.stringify(pipeline.body)}`);
  const key = await server.http(`/api/rag/pipelines/${pipeline.body.id}/keys`, {
    method: "POST",
    jar,
    json: { name: "bench", scopes: ["query", "ingest"] },
  });
  const state = { pipelineId: pipeline.body.id, key: key.body.key, email };
  writeFileSync(statePath, JSON.stringify(state));
  return state;
}

/** Sends every document, then waits for every source to be ready and the indexes to cover every row. */
async function ingest(
  server: RunningBinary,
  jar: { cookie?: string },
  state: State,
  probe: LatencyProbe,
  freeAtStart: number,
): Promise<void> {
  const started = performance.now();
  const pipeline = async () => (await server.http(`/api/rag/pipelines/${state.pipelineId}`, { jar })).body;
  const progress = new Progress(server.proc.pid, pipeline, started, freeAtStart);
  probe.phase("ingesting");
  const threadsBefore = threadCpu(server.proc.pid);
  const cpuBefore = cpuSeconds(server.proc.pid);
  await sendAll(server, state.key, args.resume ? await firstBatchLeft(pipeline) : 0);
  const sentMs = performance.now() - started;
  let p = await pipeline();
  while (p.status === "processing" || p.chunkCount < CHUNKS) {
    await Bun.sleep(1_000);
    p = await pipeline();
    if (p.status !== "processing" && p.chunkCount < CHUNKS) throw new Error(`ended with ${p.chunkCount} chunks`);
  }
  const readyMs = performance.now() - started;
  const cpu = cpuByThread(
    server.proc.pid,
    threadsBefore,
    threadCpu(server.proc.pid),
    cpuSeconds(server.proc.pid) - cpuBefore,
  );
  console.error(`  server CPU to ready, s: ${JSON.stringify(cpu)}`);
  probe.phase("indexing");
  const indexedMs = (await waitIndexed(state.pipelineId)) - started;
  const { rssPeak, diskPeak } = progress.stop();
  console.log(
    `\ningestion of ${CHUNKS.toLocaleString()} chunks (${(CHUNKS / CHUNKS_PER_DOC).toLocaleString()} documents):`,
  );
  console.table({
    "all sent": s1(sentMs),
    "every source ready": s1(readyMs),
    "chunks/s to ready": Math.round(CHUNKS / (readyMs / 1000)),
    "indexes cover every row": s1(indexedMs),
    "index catch-up after ready": s1(indexedMs - readyMs),
    "server RSS peak (30 s samples)": `${rssPeak} MB`,
    "disk used": gb(freeAtStart - free()),
    "disk used at most (2 s samples)": gb(diskPeak),
  });
}

/** A resumed run's first batch: a few before the last whose documents are all ready (sent again, they are unchanged). */
async function firstBatchLeft(pipeline: () => Promise<{ chunkCount: number }>): Promise<number> {
  const { chunkCount } = await pipeline();
  if (!Number.isInteger(chunkCount)) throw new Error("the pipeline's chunk count could not be read (signed in?)");
  const ready = chunkCount / CHUNKS_PER_DOC;
  return Math.max(0, Math.floor(ready / DOCS_PER_BATCH) - 20);
}

/**
 * Every document from batch `first` on, DOCS_PER_BATCH a request and two requests in flight,
 * waiting out each 429's Retry-After; a batch whose connection broke is sent again (a
 * batch is idempotent: documents are replaced by their external id).
 */
async function sendAll(server: RunningBinary, key: string, first: number): Promise<void> {
  const docs = Math.ceil(CHUNKS / CHUNKS_PER_DOC);
  const batches = Array.from({ length: Math.ceil(docs / DOCS_PER_BATCH) - first }, (_, b) => first + b);
  let broken = 0;
  await pooled(batches, 2, async (b) => {
    const documents = [];
    for (let d = b * DOCS_PER_BATCH; d < Math.min(docs, (b + 1) * DOCS_PER_BATCH); d++) {
      const { externalId, content, topic } = corpus.document(d);
      documents.push({ externalId, type: "text", content, metadata: { topic } });
    }
    const body = JSON.stringify({ documents });
    for (;;) {
      const sent = server.http("/api/rag/documents/batch", {
        method: "POST",
        body,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      });
      const r = await sent.catch((err: unknown) => {
        if (++broken > 20) throw err;
        console.error(`  batch ${b}: ${String(err)}; sent again`);
        return null;
      });
      if (r === null) continue;
      if (r.status === 429) await Bun.sleep(1000 * Number(r.headers.get("retry-after") ?? 1));
      else if (r.status !== 200) throw new Error(`batch ${b}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      else return;
    }
  });
}

/**
 * A line every 30 s: chunks ready, the pipeline's status, the server's RSS (its peak kept),
 * disk used, load; and the disk used every 2 s, its peak kept (old table versions come and go).
 */
class Progress {
  private peak = 0;
  private diskPeak = 0;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly diskTimer: ReturnType<typeof setInterval>;

  constructor(
    private readonly pid: number,
    pipeline: () => Promise<{ chunkCount: number; status: string }>,
    started: number,
    freeAtStart: number,
  ) {
    this.timer = setInterval(async () => {
      const p = await pipeline().catch(() => ({ chunkCount: 0, status: "unanswered" }));
      const rss = this.sample();
      const rate = p.chunkCount / ((performance.now() - started) / 1000);
      console.error(
        `  ${s1(performance.now() - started)}: ${p.chunkCount.toLocaleString()} chunks ready (${Math.round(rate)}/s), ` +
          `${p.status}, RSS ${rss} MB, disk ${gb(freeAtStart - free())}, load ${loadavg()[0]!.toFixed(1)}`,
      );
    }, 30_000);
    this.diskTimer = setInterval(() => {
      this.diskPeak = Math.max(this.diskPeak, freeAtStart - free());
    }, 2_000);
  }

  private sample(): number {
    const rss = rssMb(this.pid);
    this.peak = Math.max(this.peak, rss);
    return rss;
  }

  /** Stops the lines; the peak RSS and disk use seen, with one last sample. */
  stop(): { rssPeak: number; diskPeak: number } {
    clearInterval(this.timer);
    clearInterval(this.diskTimer);
    this.sample();
    return { rssPeak: this.peak, diskPeak: this.diskPeak };
  }
}

/** Waits (up to 60 min) until the table's vector and full-text indexes leave no row out; when, as performance.now(). */
async function waitIndexed(pipelineId: string): Promise<number> {
  const conn = await openLance(dataDir);
  const table = await conn.openTable(VectorStore.tableName(pipelineId, 1));
  const until = performance.now() + 60 * 60_000;
  try {
    for (;;) {
      await table.checkoutLatest();
      const left = await indexCoverage(table);
      if (left.every((l) => l.unindexed === 0)) return performance.now();
      if (performance.now() > until) throw new Error(`indexes still behind: ${JSON.stringify(left)}`);
      console.error(`  indexes: ${left.map((l) => `${l.name} ${l.unindexed.toLocaleString()} rows out`).join(", ")}`);
      await Bun.sleep(15_000);
    }
  } finally {
    table.close();
    conn.close();
  }
}

/** Seconds until `pid` used under 5% of a core for 5 s in a row (at most 120). */
async function idle(pid: number): Promise<number> {
  const t0 = performance.now();
  let quiet = 0;
  while (quiet < 5 && performance.now() - t0 < 120_000) {
    const before = cpuSeconds(pid);
    await Bun.sleep(1000);
    quiet = cpuSeconds(pid) - before < 0.05 ? quiet + 1 : 0;
  }
  return (performance.now() - t0) / 1000;
}

/** The settled table: latency, recall against exact search, throughput, memory and disk. */
async function serve(server: RunningBinary, state: State, freeAtStart: number): Promise<void> {
  // A server just started makes its first upkeep pass (4 s of CPU at 10M rows) 10 s later.
  await Bun.sleep(15_000);
  console.error(`the server idle after 15 + ${(await idle(server.proc.pid)).toFixed(0)} s`);
  const rnd = random(7);
  const conn = await openLance(dataDir);
  const table = await conn.openTable(VectorStore.tableName(state.pipelineId, 1));
  const exact = (q: string) => flatTopK(table, Float32Array.from(corpus.vector(q)), 10);
  const figures = await settledQueries(server, state.key, () => corpus.query(rnd), exact, {
    recallQueries: Number(args.recall),
  });
  table.close();
  conn.close();
  console.log(`\nthe settled table (${CHUNKS.toLocaleString()} chunks), load ${loadavg()[0]!.toFixed(1)}:`);
  console.table({ ...figures, "disk used": gb(freeAtStart - free()) });
}

await main();
