/** Shared helpers for the benchmarks: corpora, a driven ragd binary, timing. */
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startBinary, type RunningBinary } from "../test/support/binary";
import { SseReader } from "../test/support/sse";
import { LEGACY } from "../src/text/languages";

export const ROOT = join(import.meta.dir, "..");
export const DATASETS = join(ROOT, "..", "shared", "datasets");

export interface Doc {
  id: string;
  title: string;
  text: string;
}

/** SciFact abstracts when the shared datasets are beside the checkout (or in `datasets`), else generated prose. */
export function loadCorpus(limit = Infinity, datasets = DATASETS): Doc[] {
  const path = join(datasets, "scifact", "corpus.jsonl");
  if (!existsSync(path)) return generated(Math.min(limit, 5000));
  const out: Doc[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as { _id: string; title: string; text: string };
    out.push({ id: d._id, title: d.title, text: d.text });
    if (out.length >= limit) break;
  }
  return out;
}

function generated(n: number): Doc[] {
  const words =
    "retrieval index vector chunk token embedding query server model pipeline source document score latency".split(" ");
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: n }, (_, i) => ({
    id: String(i),
    title: `Document ${i}`,
    text: `${Array.from({ length: 200 }, () => words[Math.floor(rnd() * words.length)]).join(" ")}.`,
  }));
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** How long a bench waits for the server to listen: on a machine busy with other work, 20 s was seen to pass. */
export const START_TIMEOUT_MS = 120_000;

/** BENCH_SERVER_X=v in a bench's environment gives the server it starts X=v (a profiler's BUN_OPTIONS, say). */
function serverEnvFromBench(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).flatMap(([k, v]) => (k.startsWith("BENCH_SERVER_") ? [[k.slice(13), v ?? ""]] : [])),
  );
}

/** Starts dist/ragd on a data dir with an unlimited user signed in; returns helpers. */
export async function startRagd(dataDir: string, env: Record<string, string> = {}) {
  const server = await startBinary(dataDir, { ...serverEnvFromBench(), ...env }, undefined, START_TIMEOUT_MS);
  const jar: { cookie?: string } = {};
  const email = `bench-${Date.now()}@example.com`;
  await server.http("/api/auth/signup", { method: "POST", json: { email, password: "benchmark-password" }, jar });
  Bun.spawnSync([
    join(ROOT, "dist", "ragd"),
    "user",
    "set-tier",
    "--email",
    email,
    "--tier",
    "unlimited",
    "--data-dir",
    dataDir,
  ]);
  return { server, jar, email };
}

/** A new pipeline on the built-in model, and a key with `scopes` for it. */
export async function builtinPipeline(
  server: RunningBinary,
  jar: { cookie?: string },
  name: string,
  scopes: string[] = ["ingest"],
): Promise<{ id: string; key: string }> {
  const { id } = (
    await server.http("/api/rag/pipelines", { method: "POST", json: { name, embeddingModel: "builtin" }, jar })
  ).body;
  const { key } = (
    await server.http(`/api/rag/pipelines/${id}/keys`, { method: "POST", json: { name: "bench", scopes }, jar })
  ).body;
  return { id, key: key as string };
}

/**
 * Each batch as the JSON body of POST /api/rag/documents/batch, serialised once: building
 * its requests is the application's work, done before the clock as the raw add()'s rows
 * are embedded before its own.
 */
export function batchBodies(batches: object[][]): string[] {
  return batches.map((documents) => JSON.stringify({ documents }));
}

/**
 * Sends each batch body (batchBodies) to POST /api/rag/documents/batch with `key`,
 * `inFlight` at a time, waiting out a full queue (429, Retry-After); returns how many
 * items got each status.
 */
export async function sendBatches(
  server: RunningBinary,
  key: string,
  bodies: string[],
  inFlight: number,
): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  await pooled(bodies, inFlight, async (body) => {
    for (;;) {
      const r = await server.http("/api/rag/documents/batch", {
        method: "POST",
        body,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      });
      if (r.status === 429) {
        await Bun.sleep(1000 * Number(r.headers.get("retry-after") ?? 1));
        continue;
      }
      if (r.status !== 200) throw new Error(`batch failed: ${r.status} ${JSON.stringify(r.body)}`);
      for (const x of r.body.results as { status: string }[]) statuses.set(x.status, (statuses.get(x.status) ?? 0) + 1);
      return;
    }
  });
  return statuses;
}

/** Runs `fn` over items with at most `n` in flight. */
export async function pooled<T>(items: T[], n: number, fn: (x: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/** Polls a pipeline until no source is queued or processing. */
export async function waitIdle(
  server: RunningBinary,
  jar: { cookie?: string },
  pipelineId: string,
  timeoutMs = 30 * 60_000,
) {
  const t0 = Date.now();
  for (;;) {
    // The list carries status and counts without the sources themselves: a light poll.
    const list = (await server.http(`/api/rag/pipelines?pageSize=100`, { jar })).body;
    const p = list.data.find((x: { id: string }) => x.id === pipelineId);
    if (p.status !== "processing" && p.sourceCount > 0) return p;
    if (Date.now() - t0 > timeoutMs) throw new Error("ingestion did not finish in time");
    await Bun.sleep(100);
  }
}

/**
 * Follows the event stream of the pipeline an ingest key belongs to (docs/API.md, Events),
 * opened before its documents are sent. `ended()` resolves, with the moment it saw it
 * (performance.now()), once `n` distinct sources have said `source.ready` or
 * `source.failed`: each event is pushed when its status change commits, so a run's end is
 * seen as it happens, where polling the pipeline list every 100 ms saw it up to a poll
 * late (about 100 ms in the median of 15 warm runs, some 3 % of a run, beside a list read
 * on the server's main thread per poll).
 */
export async function followEnds(server: RunningBinary, key: string, n: number, timeoutMs = 30 * 60_000) {
  const res = await fetch(`${server.url}/api/rag/events`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`event stream: ${res.status}`);
  const sse = new SseReader(res);
  const ended = async (): Promise<number> => {
    const seen = new Set<string>();
    const until = Date.now() + timeoutMs;
    try {
      while (seen.size < n) {
        const f = await sse.next(Math.max(1, until - Date.now()));
        if (f.event === "source.ready" || f.event === "source.failed") seen.add(f.data.sourceId);
      }
      return performance.now();
    } finally {
      await sse.close();
    }
  };
  return { ended };
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU milliseconds a process has used so far, by thread: `main` (the JavaScript thread,
 * whose id is the process id), `lancedb` (LanceDB's tokio-rt-worker and lance-cpu
 * threads) and `other`: the rest of the process's total (JIT, garbage collector,
 * workers, and threads that have ended, which /proc counts in the total only).
 * Divided by the requests of a step, it says where a request's time goes whatever else
 * runs on the machine.
 */
export function threadCpuMs(pid: number): { main: number; lancedb: number; other: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  const total = (Number(fields[11]) + Number(fields[12])) * 10; // 100 ticks a second
  let main = 0;
  let lancedb = 0;
  for (const [tid, t] of threadCpu(pid)) {
    if (tid === String(pid)) main += t.cpu * 1000;
    else if (/^(tokio-rt-worker|lance-cpu)/.test(t.name)) lancedb += t.cpu * 1000;
  }
  return { main, lancedb, other: total - main - lancedb };
}

/** A thread's name, CPU seconds (user + system) and minor page faults so far. */
export interface ThreadUse {
  name: string;
  cpu: number;
  faults: number;
}

/** What each live thread of a process has used so far, by thread id. */
export function threadCpu(pid: number): Map<string, ThreadUse> {
  const out = new Map<string, ThreadUse>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      out.set(tid, {
        name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
        cpu: (Number(fields[11]) + Number(fields[12])) / 100,
        faults: Number(fields[7]),
      });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/**
 * The CPU seconds a ragd process spent between two threadCpu() readings, by kind of
 * thread: the main thread, the Bun workers (ingestion), JavaScriptCore's JIT compilers,
 * LanceDB's runtime threads; `other` is the rest of `total` (garbage collection, the
 * allocator, and threads that ended before the second reading); `mainFaults` counts the
 * main thread's minor page faults (each a first touch of memory, zeroed by the kernel).
 */
export function cpuByThread(
  pid: number,
  before: Map<string, ThreadUse>,
  after: Map<string, ThreadUse>,
  total: number,
): { main: number; workers: number; jit: number; lance: number; other: number; mainFaults: number } {
  const out = { main: 0, workers: 0, jit: 0, lance: 0, other: 0, mainFaults: 0 };
  for (const [tid, t] of after) {
    const used = t.cpu - (before.get(tid)?.cpu ?? 0);
    if (tid === String(pid)) {
      out.main += used;
      out.mainFaults += t.faults - (before.get(tid)?.faults ?? 0);
    } else if (t.name === "Worker") out.workers += used;
    else if (t.name.startsWith("JITWorker")) out.jit += used;
    else if (t.name.startsWith("tokio") || t.name.startsWith("lance")) out.lance += used;
  }
  out.other = Math.max(0, total - out.main - out.workers - out.jit - out.lance);
  return out;
}

export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Deterministic uniform generator (mulberry32), so runs are comparable. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Turns a new, empty pipeline into one made before languages existed, as an upgraded
 * database has it in a server's data dir
 * (test/languages.test.ts does the same through the app's own database).
 */
export function makeLegacy(dataDir: string, id: string): void {
  const db = new Database(join(dataDir, "ragd.db"));
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("UPDATE collections SET language = ?1, index_language = ?1 WHERE id = ?2").run(LEGACY, id);
  } finally {
    db.close();
  }
}
