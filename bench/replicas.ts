/**
 * One service of 1, 2 and 3 `ragd serve` replicas on one PostgreSQL database and one
 * bucket (CONTRACT 14; test/support/replicas.ts starts them), driven over HTTP through a
 * round-robin client as a load balancer would:
 *
 *   bun bench/replicas.ts [--docs 2000] [--clients 16] [--seconds 20] [--datasets DIR] [--pin] [--queries-only]
 *
 * `--pin`: each server process (and its threads) is held to one core with `taskset`, the
 * reference and the first replica to the last core, the next replicas to the cores before
 * it in turn, so that a replica's throughput can be read per core of its own beside the
 * reference's (the database, the gateway and this client are not pinned). `--queries-only`
 * leaves out the second ingestion and the recovery.
 *
 * 1. Query throughput: `--clients` clients asking back to back for `--seconds`, each
 *    request to the next replica, on a built-in pipeline of a few thousand chunks (the
 *    SciFact abstracts, or generated prose without them), with 1, then 2, then 3 replicas:
 *    requests/s, p50, p99. First one client asks ten queries per replica, so that no cold
 *    cache is timed; the second half of those is the "1 client" latency.
 * 2. Ingestion: the same documents sent through the documents API's batch door into a
 *    new pipeline, with 1 replica and with 3; chunks/s from the first batch to the last
 *    source ready (seen by polling the pipeline's counts every 250 ms), and how many
 *    tasks each replica ran (/metrics).
 * 3. Recovery: the documents once more with 3 replicas; once a replica has a busy worker,
 *    kill -9 it; the time from the kill to every source ready. A task the killed process
 *    held waits for its lease to expire (30 s) before another replica takes it again, so
 *    this figure is about the lease plus what work was left, not ragd's speed.
 *
 * What this machine can show, and what it cannot. Here every replica, PostgreSQL, the
 * gateway with its object store daemons, and this client share the same two cores: a
 * second and a third replica add no CPU, only processes competing for it. So the figures
 * show that the replicas share the work (every one answers, every one runs tasks), what
 * the bucket costs a query, and how long recovery takes; they cannot show how throughput
 * grows with replicas, which needs each replica on cores of its own, with the database
 * and the store elsewhere.
 *
 * Last measured (`bun bench/replicas.ts --docs 1500 --datasets <dir>`: 1,500 SciFact
 * abstracts, 4,428 chunks; 2 cores, load average 4 at the end; one run):
 *   replicas                   1         2         3     reference (one server, data dir)
 *   16 clients, req/s       24.0      24.4      25.6     156.7   (15 / 16 / 16 % of it)
 *   16 clients, p50 / p99   655/857   557/1198  515/1229 100/144 ms
 *   1 client, p50 ms       169.7      94.2     105.7       9.8
 *   ingestion, chunks/s     1,531               1,876     5,843   (26 % and 32 % of it)
 *   tasks per replica       1,500               1,000 / 250 / 250
 *   recovery: kill -9 of a replica with 1,500 sources open, every source ready 63.6 s later
 *   (33.0 to 39.2 s in three earlier runs: it depends on how many tasks the killed replica
 *   had claimed, up to 1,024 per worker, which all wait for the 30 s lease).
 * Two later runs (load 1–4) made 1,438 and 1,326 chunks/s (1 and 3 replicas; reference
 * 5,757) and recovered in 84.8 s; with at most 64 claims per worker (not kept) 684 and 893
 * chunks/s (reference 3,987) and 83.5 s. A timeline of the same kill outside this bench
 * (the 1,500 documents, three fresh replicas) showed the killed replica's 128 claims
 * expiring 30 s after it, and every source ready 34–40 s after it in one run, 54–56 s in
 * another: the others' 10 s look, then the table's turn. With the look every 2 s
 * (leases.ts), one run (load up to 11 from other work): 1,484 and 2,163 chunks/s
 * (reference 4,237), queries 24.7 / 29.3 / 24.9 req/s (reference 102.4), and every
 * source ready 32.2 s after the kill.
 * The queries in the reference and on the replicas run once upkeep has indexed the new
 * rows (`indexed`), with no per-key rate limit. Every search on the bucket reads the table
 * from the store (docs/notes/2026-12-06-object-storage.md: vector, keyword and hybrid p50 64,
 * 164 and 156 ms in process against 7, 6 and 15 ms on a local disk), and the gateway
 * serving those reads shares the two cores with the replicas: a second replica adds
 * processes, not cores, so requests/s stay flat here. Ingestion gains a little from a
 * second and third replica (their commits to the store overlap); it is bound by the
 * built-in embedding and by the store's commits, and these runs are short (the 250 ms
 * poll is up to a tenth of them). Recovery is the killed replica's 30 s task lease, then
 * the work it left.
 */
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { rmSync } from "node:fs";
import { SQL } from "bun";
import { tempDir } from "../test/support/app";
import { startBinary } from "../test/support/binary";
import { startPostgres } from "../test/support/postgres";
import { metricSum, type Replicas, startReplicas } from "../test/support/replicas";
import { startRgw } from "../test/support/rgw";
import { DATASETS, loadCorpus, percentile, pooled, random, START_TIMEOUT_MS } from "./support";

const { values: args } = parseArgs({
  options: {
    docs: { type: "string", default: "2000" },
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "20" },
    datasets: { type: "string" },
    pin: { type: "boolean", default: false },
    "queries-only": { type: "boolean", default: false },
  },
});
const CLIENTS = Number(args.clients);
const SECONDS = Number(args.seconds);
const BATCH = 250;
const corpus = loadCorpus(Number(args.docs), args.datasets ?? DATASETS);
const documents = corpus.map((d) => ({ externalId: d.id, type: "text", content: `${d.title}\n\n${d.text}` }));
const queries = corpus.slice(0, 200).map((d) => d.title);

interface Pipeline {
  id: string;
  key: string;
}
interface QueryRun {
  /** p50 of one client alone (the warm-up's second half), ms. */
  alone: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}
interface IngestRun {
  seconds: number;
  chunks: number;
  /** Tasks each replica ended with `ready` during the run. */
  tasks: number[];
}

/** The core server `i` is held to with --pin: the last first, then the ones before it. */
const coreOf = (i: number) => {
  const cores = availableParallelism();
  return cores - 1 - (i % cores);
};

/** Holds process `pid`, its threads and its child processes to `core` (--pin). */
function pin(pid: number, core: number): void {
  if (!args.pin) return;
  const children = Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .split("\n")
    .filter(Boolean);
  const done = Bun.spawnSync(["taskset", "-a", "-p", "-c", String(core), String(pid)], { stdout: "ignore" });
  if (done.exitCode !== 0) throw new Error(`taskset could not pin ${pid}: ${done.stderr.toString()}`);
  for (const child of children) pin(Number(child), core);
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** No per-key query limit (50 a second by default), for the reference and the replicas alike. */
const UNLIMITED = { RAGD_QUERY_RATE: "1000000", RAGD_QUERY_BURST: "1000000" };
/**
 * After ingestion, queries are timed once index upkeep has indexed every row (it runs on a
 * 10 s tick once ingestion stops, and on a bucket took from under 25 s to over 45 s):
 * before it, every keyword search tokenises the rows the full-text index lacks, and that
 * is not the steady state being compared. Read from /metrics; 5 minutes at most.
 */
async function indexed(set: Replicas): Promise<void> {
  const until = Date.now() + 300_000;
  for (;;) {
    const m = String((await set.at(set.live()[0]!).http("/metrics")).body);
    const done =
      metricSum(m, "ragd_lancedb_index_indexed_rows") > 0 && metricSum(m, "ragd_lancedb_index_unindexed_rows") === 0;
    if (done || Date.now() > until) return;
    await Bun.sleep(2000);
  }
}

/** A new built-in pipeline of the signed-in user, with a key that queries and ingests. */
async function newPipeline(set: Replicas, name: string): Promise<Pipeline> {
  const p = await set.client.http("/api/rag/pipelines", { method: "POST", json: { name, embeddingModel: "builtin" } });
  if (p.status !== 201) throw new Error(`pipeline: ${p.status} ${JSON.stringify(p.body)}`);
  const k = await set.client.http(`/api/rag/pipelines/${p.body.id}/keys`, {
    method: "POST",
    json: { name: "bench", scopes: ["query", "ingest"] },
  });
  return { id: p.body.id, key: k.body.key };
}

/** Every document in batches, two in flight, each batch to the next replica. */
async function send(set: Replicas, p: Pipeline): Promise<void> {
  const batches = Array.from({ length: Math.ceil(documents.length / BATCH) }, (_, i) =>
    documents.slice(i * BATCH, (i + 1) * BATCH),
  );
  await pooled(batches, 2, async (batch) => {
    for (;;) {
      const r = await set.client.http("/api/rag/documents/batch", {
        method: "POST",
        json: { documents: batch },
        headers: bearer(p.key),
      });
      if (r.status === 429) {
        await Bun.sleep(1000 * Number(r.headers.get("retry-after") ?? 1));
        continue;
      }
      if (r.status !== 200) throw new Error(`batch: ${r.status} ${JSON.stringify(r.body)}`);
      return;
    }
  });
}

/** The pipeline's counts by status, read through the next replica. */
async function counts(set: Replicas, p: Pipeline): Promise<Record<string, number>> {
  const r = await set.client.http(`/api/rag/pipelines/${p.id}/sources?pageSize=1`);
  if (r.status !== 200) throw new Error(`counts: ${r.status}`);
  return r.body.counts;
}

/** Polls until every document has ended; performance.now() of the poll that saw it. */
async function settled(set: Replicas, p: Pipeline, timeoutMs = 30 * 60_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const c = await counts(set, p);
    if ((c.ready ?? 0) + (c.failed ?? 0) >= documents.length) return performance.now();
    if (Date.now() > until) throw new Error(`not settled: ${JSON.stringify(c)}`);
    await Bun.sleep(250);
  }
}

/** Tasks each replica (by index; 0 for one that is down) has ended `ready` so far. */
async function readyTasks(set: Replicas): Promise<number[]> {
  return Promise.all(
    Array.from({ length: set.count }, async (_, i) => {
      if (!set.live().includes(i)) return 0;
      const m = String((await set.at(i).http("/metrics")).body);
      return metricSum(m, "ragd_ingest_sources_total", { outcome: "ready" });
    }),
  );
}

async function ingest(set: Replicas, name: string): Promise<{ pipeline: Pipeline; run: IngestRun }> {
  const pipeline = await newPipeline(set, name);
  const before = await readyTasks(set);
  const t0 = performance.now();
  await send(set, pipeline);
  const seconds = ((await settled(set, pipeline)) - t0) / 1000;
  const after = await readyTasks(set);
  const chunks = (await set.client.http(`/api/rag/pipelines/${pipeline.id}`)).body.chunkCount as number;
  return { pipeline, run: { seconds, chunks, tasks: after.map((n, i) => n - (before[i] ?? 0)) } };
}

/** `CLIENTS` clients back to back for `SECONDS`, round robin; warmed up on every replica first. */
async function throughput(set: Replicas, key: string): Promise<QueryRun> {
  const ask = (text: string) =>
    set.client.http("/api/rag/query", { method: "POST", json: { query: text, topK: 10 }, headers: bearer(key) });
  const alone: number[] = [];
  for (const q of queries.slice(0, 10 * set.live().length)) {
    const s = performance.now();
    await ask(q);
    alone.push(performance.now() - s);
  }
  const rnd = random(11);
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const q = queries[Math.floor(rnd() * queries.length)]!;
        const s = performance.now();
        const r = await ask(q);
        latencies.push(performance.now() - s);
        if (r.status !== 200) errors++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    alone: percentile(alone.slice(alone.length / 2), 50),
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

/** The documents again with every replica up; kill -9 of one with a busy worker; seconds from it to all ready. */
async function recovery(set: Replicas) {
  const pipeline = await newPipeline(set, "recovery");
  // Every batch is accepted first, so that none is in flight to the replica killed.
  await send(set, pipeline);
  let victim = -1;
  const until = Date.now() + 60_000;
  while (victim < 0) {
    for (const i of set.live()) {
      const m = String((await set.at(i).http("/metrics")).body);
      if (victim < 0 && metricSum(m, "ragd_ingest_workers_busy") > 0) victim = i;
    }
    if (victim < 0 && Date.now() > until) throw new Error("no replica had a busy worker within 60 s");
    await Bun.sleep(20);
  }
  const left = await counts(set, pipeline);
  await set.kill(victim);
  const t0 = performance.now();
  const seconds = ((await settled(set, pipeline)) - t0) / 1000;
  return { victim, open: (left.queued ?? 0) + (left.processing ?? 0), seconds };
}

/**
 * The reference, in the same run: one `ragd serve` on a data directory alone (SQLite,
 * tables and files on the local disk), as Replicas for the functions above.
 */
async function alone(): Promise<{ set: Replicas; stop: () => void }> {
  const dir = tempDir("ragd-bench-alone-");
  const bin = await startBinary(dir, UNLIMITED, undefined, START_TIMEOUT_MS);
  pin(bin.proc.pid, coreOf(0));
  const jar: { cookie?: string } = {};
  const set = {
    count: 1,
    live: () => [0],
    at: () => bin,
    client: {
      jar,
      http: async (path: string, init?: Parameters<typeof bin.http>[1]) => {
        const own = init?.headers && "authorization" in (init.headers as Record<string, string>);
        return { ...(await bin.http(path, { ...init, jar: own ? undefined : jar })), replica: 0 };
      },
    },
  } as unknown as Replicas;
  return {
    set,
    stop: () => {
      bin.proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function reference(): Promise<{ ingest: IngestRun; query: QueryRun }> {
  const ref = await alone();
  try {
    await ref.set.client.http("/api/auth/signup", {
      method: "POST",
      json: { email: "alone@example.com", password: "benchmark-password" },
    });
    console.error(`reference: ingesting ${documents.length} documents into one server on a data directory`);
    const done = await ingest(ref.set, "alone");
    await indexed(ref.set);
    console.error(`reference: ${CLIENTS} clients for ${SECONDS} s`);
    return { ingest: done.run, query: await throughput(ref.set, done.pipeline.key) };
  } finally {
    ref.stop();
  }
}

/**
 * The bench database's committed transactions (reads outside a transaction count, one a
 * statement), rows written and connections so far (pg_stat_database).
 */
async function pgStats(url: string): Promise<{ commits: number; rows: number; backends: number; at: number }> {
  const sql = new SQL(url, { max: 1 });
  try {
    const [row] = await sql`SELECT xact_commit::float8 AS commits, numbackends AS backends,
      (tup_inserted + tup_updated + tup_deleted)::float8 AS rows
      FROM pg_stat_database WHERE datname = current_database()`;
    return {
      commits: Number(row.commits),
      rows: Number(row.rows),
      backends: Number(row.backends),
      at: performance.now(),
    };
  } finally {
    await sql.close();
  }
}

/** Commits and rows written a second between two readings (this bench's own included), and the connections at the second. */
const pgRate = (a: Awaited<ReturnType<typeof pgStats>>, b: Awaited<ReturnType<typeof pgStats>>) => {
  const seconds = (b.at - a.at) / 1000;
  const rate = (x: number) => (x / seconds).toFixed(0);
  return `${rate(b.commits - a.commits)} commits/s, ${rate(b.rows - a.rows)} rows written/s, ${b.backends} connections`;
};

const ref = await reference();
const pg = await startPostgres();
const rgw = await startRgw();
let set: Replicas | null = null;
try {
  const storage = { ...rgw.storage, prefix: "bench" };
  set = await startReplicas(1, {
    databaseUrl: await pg.createDatabase("ragd_bench"),
    storage,
    startTimeoutMs: START_TIMEOUT_MS,
    env: UNLIMITED,
  });
  pin(set.at(0).proc.pid, coreOf(0));
  // The first account is an administrator, with no limit on pipelines.
  const email = `bench-${Date.now()}@example.com`;
  await set.client.http("/api/auth/signup", { method: "POST", json: { email, password: "benchmark-password" } });
  console.error(`ingesting ${documents.length} documents with 1 replica`);
  const beforeIngest = await pgStats(set.databaseUrl);
  const one = await ingest(set, "ingest-1");
  console.error(
    `PostgreSQL during the ingestion with 1 replica: ${pgRate(beforeIngest, await pgStats(set.databaseUrl))}`,
  );
  await indexed(set);
  const queried: QueryRun[] = [];
  for (let n = 1; n <= 3; n++) {
    if (n > 1) pin(set.at(await set.add()).proc.pid, coreOf(n - 1));
    console.error(`querying with ${n} replica(s): ${CLIENTS} clients for ${SECONDS} s`);
    const before = await pgStats(set.databaseUrl);
    queried.push(await throughput(set, one.pipeline.key));
    console.error(`PostgreSQL while ${n} replica(s) answered: ${pgRate(before, await pgStats(set.databaseUrl))}`);
  }
  const q = ref.query;
  let three: IngestRun | null = null;
  if (args["queries-only"]) perCore(queried, q);
  else {
    console.error(`ingesting ${documents.length} documents with 3 replicas`);
    const before = await pgStats(set.databaseUrl);
    three = (await ingest(set, "ingest-3")).run;
    console.error(`PostgreSQL during the ingestion with 3 replicas: ${pgRate(before, await pgStats(set.databaseUrl))}`);
    console.error("recovery: kill -9 of a replica with a busy worker");
    report(one.run, three, queried, await recovery(set));
  }
  const rate = (run: IngestRun) =>
    `${((100 * run.chunks) / run.seconds / (ref.ingest.chunks / ref.ingest.seconds)).toFixed(0)} %`;
  console.log(
    `alone     one server on a data directory (reference): 1 client p50 ${q.alone.toFixed(1)} ms, ${q.rps.toFixed(1)} req/s (p50 ${q.p50.toFixed(1)}, p99 ${q.p99.toFixed(1)} ms, errors ${q.errors}), ingestion ${(ref.ingest.chunks / ref.ingest.seconds).toFixed(0)} chunks/s`,
  );
  console.log(
    `ratios    to the reference: req/s ${queried.map((r) => `${((100 * r.rps) / q.rps).toFixed(0)} %`).join(" / ")}; 1 client p50 ${queried.map((r) => `${(r.alone / q.alone).toFixed(1)}x`).join(" / ")}; ingestion ${rate(one.run)}${three ? ` and ${rate(three)}` : ""}`,
  );
} finally {
  await set?.stop();
  await rgw.stop();
  await pg.stop();
}

/** Query throughput per core the replicas are held to (--pin), beside the pinned reference's one core. */
function perCore(queried: QueryRun[], q: QueryRun): void {
  const cores = availableParallelism();
  console.log(
    `\nragd replicas, ${documents.length} documents, ${CLIENTS} clients${args.pin ? ", each server held to a core" : ""}`,
  );
  console.log("replicas  cores  req/s   per core  of the reference's   1 client p50 ms   p50 ms   p99 ms  errors");
  queried.forEach((r, i) => {
    const n = Math.min(i + 1, cores);
    const each = r.rps / n;
    console.log(
      `${String(i + 1).padStart(8)}  ${String(n).padStart(5)}  ${r.rps.toFixed(1).padStart(5)}  ${each.toFixed(1).padStart(9)}  ${`${((100 * each) / q.rps).toFixed(0)} %`.padStart(18)}   ${r.alone.toFixed(1).padStart(15)}  ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}  ${String(r.errors).padStart(6)}`,
    );
  });
  console.log(`machine   load average ${loadavg()[0]!.toFixed(1)} at the end`);
}

function report(one: IngestRun, three: IngestRun, queried: QueryRun[], rec: Awaited<ReturnType<typeof recovery>>) {
  const ms = (x: number) => x.toFixed(1).padStart(7);
  console.log(
    `\nragd replicas on one PostgreSQL database and one bucket, ${availableParallelism()} cores, ${documents.length} documents, ${one.chunks} chunks`,
  );
  console.log(
    "replicas  1 client p50 ms  query req/s   p50 ms   p99 ms  errors   ingestion chunks/s  tasks per replica",
  );
  queried.forEach((q, i) => {
    const run = i === 0 ? one : i === 2 ? three : null;
    const ingestion = run
      ? `${(run.chunks / run.seconds).toFixed(0).padStart(8)} (${run.seconds.toFixed(1)} s)`.padEnd(20)
      : "".padEnd(20);
    console.log(
      `${String(i + 1).padStart(8)}  ${ms(q.alone).padStart(15)}  ${q.rps.toFixed(1).padStart(11)}  ${ms(q.p50)}  ${ms(q.p99)}  ${String(q.errors).padStart(6)}   ${ingestion}${run ? run.tasks.join(" / ") : ""}`,
    );
  });
  console.log(
    `recovery  kill -9 of replica ${rec.victim} with ${rec.open} sources queued or processing: every source ready ${rec.seconds.toFixed(1)} s later (task lease 30 s)`,
  );
  console.log(`machine   load average ${loadavg()[0]!.toFixed(1)} at the end; ${CLIENTS} query clients`);
}
