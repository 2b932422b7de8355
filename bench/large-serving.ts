/**
 * The measuring parts of bench/ten-million.ts: one client's steady query a second through
 * every phase, index coverage read from the table, and the settled table's figures.
 */
import { readFileSync } from "node:fs";
import type { Table } from "@lancedb/lancedb";
import type { RunningBinary } from "../test/support/binary";
import { percentile } from "./support";

const TOP_K = 10;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** A process's resident memory in MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

type Mode = "vector" | "keyword" | "hybrid";
type Hit = { metadata: { sourceId: string; chunkIndex: number } };

/** One query through the API; its latency in ms and its hits' ids (`<source>:<chunk>`). */
export async function ask(server: RunningBinary, key: string, query: string, mode: Mode) {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/rag/query`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, topK: TOP_K, mode }),
    signal: AbortSignal.timeout(60_000),
  });
  if (res.status !== 200) throw new Error(`query: ${res.status} ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { results: Hit[] };
  const ids = body.results.map((r) => `${r.metadata.sourceId}:${r.metadata.chunkIndex}`);
  return { ms: performance.now() - t0, ids };
}

/** A vector or hybrid query (in turn) a second, its latency kept by phase and mode, until stopped. */
export class LatencyProbe {
  private readonly times = new Map<string, number[]>();
  private readonly errors = new Map<string, number>();
  private current = "start";
  private running = true;
  private readonly done: Promise<void>;

  constructor(server: RunningBinary, key: string, corpus: { query(rnd: () => number): string }, asking = true) {
    this.running = asking;
    let n = 0;
    let seed = 0x2545f491;
    const rnd = () => ((seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 1) >>> 0) / 2 ** 32;
    this.done = (async () => {
      while (this.running) {
        const mode = n++ % 2 ? "hybrid" : "vector";
        const phase = `${this.current}, ${mode}`;
        const next = Bun.sleep(1000);
        try {
          const r = await ask(server, key, corpus.query(rnd), mode);
          const times = this.times.get(phase) ?? [];
          this.times.set(phase, times);
          times.push(r.ms);
        } catch {
          this.errors.set(phase, (this.errors.get(phase) ?? 0) + 1);
        }
        await next;
      }
    })();
  }

  phase(name: string): void {
    this.current = name;
  }

  stop(): Promise<void> {
    this.running = false;
    return this.done;
  }

  report(): Record<string, Record<string, string | number>> {
    const out: Record<string, Record<string, string | number>> = {};
    for (const [phase, t] of this.times)
      out[phase] = {
        queries: t.length,
        errors: this.errors.get(phase) ?? 0,
        p50: ms(percentile(t, 50)),
        p99: ms(percentile(t, 99)),
        max: ms(Math.max(...t)),
      };
    return out;
  }
}

/** p50, p99 and max of the query requests in a server's request log (its own `ms`, from request to answer). */
export function loggedQueryTimes(logs: string): string {
  const ms = logs
    .split("\n")
    .filter((l) => l.includes('"route":"/api/rag/query"'))
    .map((l) => Number(JSON.parse(l).ms))
    .filter((x) => Number.isFinite(x));
  if (ms.length === 0) return "none";
  return `${ms.length} requests, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
}

/** Each index of the table and the rows it leaves out. */
export async function indexCoverage(table: Table): Promise<{ name: string; unindexed: number }[]> {
  const out = [];
  for (const index of await table.listIndices()) {
    const stats = await table.indexStats(index.name);
    out.push({ name: index.name, unindexed: stats?.numUnindexedRows ?? 0 });
  }
  return out;
}

/**
 * The settled table's figures, mode by mode (vector, keyword, hybrid: 20 queries to warm up,
 * then `perMode` in a row; a query past the 60 s timeout is counted, not fatal), recall@10
 * of `recallQueries` vector queries against `exact`, 32 clients' vector throughput for 10 s,
 * and the server's peak RSS over all of it (sampled every 250 ms).
 */
export async function settledQueries(
  server: RunningBinary,
  key: string,
  nextQuery: () => string,
  exact: (q: string) => Promise<Set<string>>,
  { perMode = 200, recallQueries = 30 } = {},
): Promise<Record<string, string | number>> {
  let rssPeak = 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(server.proc.pid))), 250);
  try {
    const out: Record<string, string | number> = {};
    for (const mode of ["vector", "keyword", "hybrid"] as const) Object.assign(out, await modeFigures(mode));
    let found = 0;
    for (let i = 0; i < recallQueries; i++) {
      const q = nextQuery();
      const truth = await exact(q);
      found += (await ask(server, key, q, "vector")).ids.filter((id) => truth.has(id)).length;
    }
    out[`recall@10, ${recallQueries} vector queries`] = (found / (recallQueries * TOP_K)).toFixed(3);
    out["32 clients, vector q/s"] = (await throughput()).toFixed(1);
    out["server RSS peak while serving"] = `${rssPeak} MB`;
    return out;
  } finally {
    clearInterval(sampler);
  }

  async function modeFigures(mode: Mode): Promise<Record<string, string | number>> {
    const times: number[] = [];
    let late = 0;
    for (let i = 0; i < 20 + perMode; i++) {
      const t = await ask(server, key, nextQuery(), mode).then(
        (r) => r.ms,
        () => null,
      );
      if (t === null) late++;
      else if (i >= 20) times.push(t);
    }
    if (times.length === 0) return { [`${mode}, failed or over 60 s`]: late };
    return {
      [`${mode} p50`]: ms(percentile(times, 50)),
      [`${mode} p95`]: ms(percentile(times, 95)),
      [`${mode} max`]: ms(Math.max(...times)),
      [`${mode}, failed or over 60 s`]: late,
    };
  }

  async function throughput(): Promise<number> {
    let answered = 0;
    const until = performance.now() + 10_000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() < until) {
          await ask(server, key, nextQuery(), "vector").catch(() => null);
          answered++;
        }
      }),
    );
    return answered / ((performance.now() - t0) / 1000);
  }
}
