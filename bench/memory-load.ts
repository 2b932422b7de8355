/**
 * Memory under load, through the compiled binary with the built-in embedder:
 * the server's resident memory while query clients hammer it and large text
 * sources are ingested, and how far it falls once ingestion ends.
 *
 *   ./node_modules/.bin/bun bench/memory-load.ts [--sources 150] [--kb 150] [--clients 48]
 *                                                [--preload 10] [--settle 90] [--modes hybrid,vector,keyword]
 *                                                [--env NAME=value]…
 *
 * 1. Starts dist/ragd on a fresh data directory (query rate limit lifted), reads its
 *    idle RSS, creates a pipeline and a key, and ingests `--preload` sources so that
 *    queries find something.
 * 2. Runs `--clients` concurrent query clients (each asks the `--modes` in turn,
 *    by default hybrid, vector and keyword, topK 10) while `--sources` text sources
 *    of about `--kb` KB each are added, 8 requests at a time, and waits until the
 *    pipeline is no longer processing. RSS (VmRSS of /proc/PID/status) is sampled every 250 ms throughout.
 * 3. Stops the clients and keeps sampling for up to `--settle` seconds (index upkeep
 *    runs in that time); stops early once RSS has stayed within 5 MB for 20 s.
 *
 * `--env` passes a setting to the server (repeatable), to compare configurations.
 *
 * Prints: the queries answered during ingestion and their latency; RSS of the idle
 * fresh server, after the preload, the peak during the load (sampled, and the
 * kernel's high-water mark), at the end of ingestion, idle after settling, and the time to settle (from the end of ingestion until RSS stays within
 * max(10 MB, 3 %) of its final value).
 *
 * Text is prose of a made-up 20,000-word language with skewed word frequencies,
 * generated from a fixed seed, so runs are comparable.
 */
import { readFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { tempDir } from "../test/support/app";
import { ensureBinary, type RunningBinary } from "../test/support/binary";
import { peakRssMb, percentile, pooled, random, startRagd, waitIdle } from "./support";

const { values: args } = parseArgs({
  options: {
    sources: { type: "string", default: "150" },
    kb: { type: "string", default: "150" },
    clients: { type: "string", default: "48" },
    preload: { type: "string", default: "10" },
    settle: { type: "string", default: "90" },
    modes: { type: "string", default: "hybrid,vector,keyword" },
    env: { type: "string", multiple: true, default: [] },
  },
});
const SOURCES = Number(args.sources);
const SOURCE_BYTES = Number(args.kb) * 1024;
const CLIENTS = Number(args.clients);
const PRELOAD = Number(args.preload);
const SETTLE_MS = Number(args.settle) * 1000;
/** Extra settings for the server, `--env RAGD_WORKERS=1` (repeatable), to compare configurations. */
const ENV = Object.fromEntries(args.env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
const MODES = args.modes.split(",");

const SYLLABLES = "ka ro mi tan vel sor qu ix len dra po ne ul ga thi ber zo fen mar lit".split(" ");
const VOCAB = ((rnd) =>
  Array.from({ length: 20_000 }, (_, i) =>
    Array.from({ length: 1 + (i % 4) }, () => SYLLABLES[Math.floor(rnd() * SYLLABLES.length)]).join(""),
  ))(random(42));
const word = (rnd: () => number) => VOCAB[Math.floor(VOCAB.length * rnd() ** 3)]!;

/** About `bytes` of prose: sentences of 6–25 words, paragraphs of 3–8 sentences. */
function document(rnd: () => number, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const sentences = 3 + Math.floor(rnd() * 6);
    let para = "";
    for (let s = 0; s < sentences; s++) {
      const words = Array.from({ length: 6 + Math.floor(rnd() * 20) }, () => word(rnd));
      words[0] = words[0]![0]!.toUpperCase() + words[0]!.slice(1);
      para += `${s ? " " : ""}${words.join(" ")}.`;
    }
    parts.push(para);
    size += para.length + 2;
  }
  return parts.join("\n\n");
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** Samples a process's RSS every 250 ms until stopped. */
function sampler(pid: number) {
  const samples: { t: number; mb: number }[] = [];
  const take = () => samples.push({ t: performance.now(), mb: rssMb(pid) });
  take();
  const timer = setInterval(take, 250);
  return {
    samples,
    stop: () => clearInterval(timer),
    maxSince: (t: number) => Math.max(...samples.filter((s) => s.t >= t).map((s) => s.mb)),
    last: () => samples[samples.length - 1]!.mb,
  };
}

async function addSources(server: RunningBinary, jar: { cookie?: string }, pipelineId: string, docs: string[]) {
  await pooled(docs, 8, async (content, i) => {
    const r = await server.http(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", name: `doc ${i}`, content },
      jar,
    });
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`);
  });
}

/** Query clients that run until `stop()`; counts answers and failures. */
function queryClients(url: string, key: string, n: number) {
  let running = true;
  const counts = { ok: 0, failed: 0 };
  const ms: number[] = [];
  const rnd = random(99);
  const loops = Array.from({ length: n }, async (_, c) => {
    for (let i = c; running; i++) {
      const query = Array.from({ length: 2 + Math.floor(rnd() * 5) }, () => word(rnd)).join(" ");
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/api/rag/query`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ query, topK: 10, mode: MODES[i % MODES.length] }),
        });
        await res.arrayBuffer();
        ms.push(performance.now() - t0);
        if (res.status === 200) counts.ok++;
        else counts.failed++;
      } catch {
        counts.failed++;
      }
    }
  });
  return {
    counts,
    ms,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Samples until RSS has stayed within 5 MB for 20 s, or `SETTLE_MS` passes. */
async function settle(rss: ReturnType<typeof sampler>, from: number) {
  while (performance.now() - from < SETTLE_MS) {
    await Bun.sleep(1000);
    const recent = rss.samples.filter((s) => s.t >= performance.now() - 20_000).map((s) => s.mb);
    if (performance.now() - from > 25_000 && Math.max(...recent) - Math.min(...recent) <= 5) break;
  }
  const final = rss.last();
  const band = Math.max(10, final * 0.03);
  const after = rss.samples.filter((s) => s.t >= from);
  let settledAt = after[0]!.t;
  for (const s of after) if (Math.abs(s.mb - final) > band) settledAt = s.t;
  return { final, seconds: (settledAt - from) / 1000 };
}

async function main(): Promise<void> {
  await ensureBinary();
  const dir = tempDir("ragd-bench-mem-");
  const { server, jar } = await startRagd(dir, {
    RAGD_QUERY_RATE: "1000000",
    RAGD_QUERY_BURST: "1000000",
    ...ENV,
  });
  const pid = server.proc.pid;
  try {
    await Bun.sleep(2000);
    const fresh = rssMb(pid);
    const rnd = random(1);
    const docs = Array.from({ length: PRELOAD + SOURCES }, () => document(rnd, SOURCE_BYTES));
    const pipeline = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "bench" }, jar })).body;
    const key = (
      await server.http(`/api/rag/pipelines/${pipeline.id}/keys`, { method: "POST", json: { name: "bench" }, jar })
    ).body;
    if (PRELOAD) {
      await addSources(server, jar, pipeline.id, docs.slice(0, PRELOAD));
      await waitIdle(server, jar, pipeline.id);
    }
    const preloaded = rssMb(pid);
    console.error(`fresh ${fresh.toFixed(0)} MB, after preload ${preloaded.toFixed(0)} MB; loading`);

    const rss = sampler(pid);
    const t0 = performance.now();
    const clients = queryClients(server.url, key.key, CLIENTS);
    await addSources(server, jar, pipeline.id, docs.slice(PRELOAD));
    const done = await waitIdle(server, jar, pipeline.id);
    const ingestEnd = performance.now();
    const atEnd = rssMb(pid);
    const peak = rss.maxSince(t0);
    await clients.stop();
    console.error(`ingested in ${((ingestEnd - t0) / 1000).toFixed(1)} s; settling`);
    const settled = await settle(rss, ingestEnd);
    rss.stop();

    const mb = (x: number) => `${x.toFixed(0)} MB`;
    console.log(
      `\nmemory-load: ${SOURCES} sources × ${args.kb} KB (${PRELOAD} preloaded), ${CLIENTS} query clients, built-in embedder`,
    );
    console.log(`  chunks               ${done.chunkCount} (status ${done.status})`);
    console.log(
      `  queries              ${clients.counts.ok} answered, ${clients.counts.failed} failed, during ${((ingestEnd - t0) / 1000).toFixed(1)} s of ingestion; latency p50 ${percentile(clients.ms, 50)?.toFixed(0)} ms, p95 ${percentile(clients.ms, 95)?.toFixed(0)} ms`,
    );
    console.log(`  idle fresh server    ${mb(fresh)}`);
    console.log(`  after preload        ${mb(preloaded)}`);
    console.log(`  peak during load     ${mb(peak)} (high-water mark ${mb(peakRssMb(pid))})`);
    console.log(`  at end of ingestion  ${mb(atEnd)}`);
    console.log(`  idle after settling  ${mb(settled.final)}`);
    console.log(`  time to settle       ${settled.seconds.toFixed(1)} s after ingestion ended`);
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
