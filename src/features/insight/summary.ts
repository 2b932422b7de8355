/**
 * The Insight figures from rows (service.ts reads them): pure functions, so the buckets
 * and percentiles are the same on SQLite and PostgreSQL.
 */
import type { SearchMode } from "../../retrieval/request";

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const MODES: SearchMode[] = ["keyword", "vector", "hybrid"];

/** The value below which `share` of the sorted values lie (nearest rank); null for none. */
export function percentile(sorted: number[], share: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(share * sorted.length));
  return sorted[rank - 1]!;
}

/** One bucket per hour from `since` (every hour of the window, empty ones too). */
export function hourBuckets(
  rows: { at: string; latencyMs: number; noRelevant: boolean }[],
  since: string,
  hours: number,
) {
  const start = Date.parse(since);
  const buckets = Array.from({ length: hours }, () => ({ latencies: [] as number[], noRelevant: 0 }));
  for (const r of rows) {
    const i = Math.floor((Date.parse(r.at) - start) / HOUR_MS);
    const b = buckets[i];
    if (!b) continue;
    b.latencies.push(r.latencyMs);
    if (r.noRelevant) b.noRelevant++;
  }
  return buckets.map((b, i) => {
    const sorted = b.latencies.sort((x, y) => x - y);
    return {
      hour: new Date(start + i * HOUR_MS).toISOString(),
      count: sorted.length,
      noRelevant: b.noRelevant,
      p50Ms: percentile(sorted, 0.5),
      p95Ms: percentile(sorted, 0.95),
    };
  });
}

/** Chunks per minute of the sources indexed in it, minutes with none left out, oldest first. */
export function minuteBuckets(rows: { at: string | null; chunks: number }[]) {
  const sums = new Map<number, number>();
  for (const r of rows) {
    if (r.at === null) continue;
    const minute = Math.floor(Date.parse(r.at) / MINUTE_MS) * MINUTE_MS;
    sums.set(minute, (sums.get(minute) ?? 0) + r.chunks);
  }
  return [...sums]
    .sort(([a], [b]) => a - b)
    .map(([minute, chunks]) => ({ minute: new Date(minute).toISOString(), chunks }));
}

interface RunRow {
  setId: string;
  setName: string;
  kind: string;
  result: string;
  createdAt: string;
}

type Figures = Partial<Record<SearchMode, { ndcgAt10?: number; hitAt1?: number }>>;

/** nDCG@10 and hit@1 of each mode for each plain run (a re-index's comparisons are left out). */
export function evaluationPoints(runs: RunRow[]) {
  return runs.flatMap((run) => {
    if (run.kind !== "run") return [];
    let overall: Figures | undefined;
    try {
      overall = (JSON.parse(run.result) as { overall?: Figures }).overall;
    } catch {
      return [];
    }
    if (!overall) return [];
    const pick = (k: "ndcgAt10" | "hitAt1") =>
      Object.fromEntries(MODES.flatMap((m) => (typeof overall[m]?.[k] === "number" ? [[m, overall[m][k]]] : [])));
    return [
      { at: run.createdAt, setId: run.setId, setName: run.setName, ndcgAt10: pick("ndcgAt10"), hitAt1: pick("hitAt1") },
    ];
  });
}
