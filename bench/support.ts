/** Shared helpers for the benchmarks: corpora, a driven ragd binary, timing. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startBinary, type RunningBinary } from "../test/support/binary";

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

/** Starts dist/ragd on a data dir with an unlimited user signed in; returns helpers. */
export async function startRagd(dataDir: string, env: Record<string, string> = {}) {
  const server = await startBinary(dataDir, env, undefined, START_TIMEOUT_MS);
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
  return { server, jar };
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

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
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
