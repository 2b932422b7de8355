/**
 * How near the exact neighbours of the bench queries are to one another (the `ties` kind
 * of bench/ann-sizes.ts): when the 10th nearest row has dozens of rows as near as
 * itself, "recall@10 by id" counts an equally near row as a miss, and no index can
 * find "the" top 10. Scans every stored vector in JavaScript (float64 sums) and compares
 * with LanceDB's own flat scan, which the benches take as the truth.
 *
 * On the topical corpus of built-in vectors (50 queries, 100,000 and 300,000 rows) the
 * neighbours are not ties: no row beyond the top 10 within 1e-6 of the 10th, a median
 * of 0 (at most 4) within 1e-3, 1 (at most 6) within 1% of its similarity; the 10th's
 * similarity is 0.37 (median), the 11th's 0.002 below it and the 50th's 0.06. The
 * two flat scans agree on every id. The top 10 come from one topic but lie at cosine
 * 0.39 from the query and 0.36–0.375 from one another (random rows: 0.12), so their
 * partitions are picked by their other words (docs/notes/2026-12-06-search-and-ann-indexes.md).
 */
import type { Table } from "@lancedb/lancedb";
import { flatTopK } from "./kept-corpus";
import { recallHits, RecallTally } from "./recall";
import { random } from "./support";

const RANKS = [1, 2, 5, 9, 10, 11, 12, 15, 20, 30, 50];
/** Windows below the 10th similarity: absolute 1e-6 and 1e-3, and 1% of it. */
const WINDOWS: [string, (s10: number) => number][] = [
  ["1e-6", () => 1e-6],
  ["1e-3", () => 1e-3],
  ["1%", (s10) => Math.abs(s10) * 0.01],
];

/** Cosine similarity of every stored row to `q`, as float64 sums (stored vectors and queries are unit length). */
function similarities(all: Float32Array, dim: number, q: Float32Array): Float64Array {
  const out = new Float64Array(all.length / dim);
  for (let i = 0, off = 0; i < out.length; i++, off += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += all[off + j]! * q[j]!;
    out[i] = s;
  }
  return out;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { min: s[0]!, median: at(0.5), p90: at(0.9), max: s[s.length - 1]! };
};
const fmt = (x: number) => (Math.abs(x) < 0.01 && x !== 0 ? x.toExponential(2) : x.toFixed(4));

function counted(values: number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}
/** The size of the largest group of equal values. */
const largestGroup = (values: number[]) => Math.max(...counted(values).values());
/** The most common of `values`. */
const mostCommon = (values: number[]) => [...counted(values)].sort((a, b) => b[1] - a[1])[0]![0];

/** The mean vector of each topic's rows (topic t at t × dim): the centroids an ideal IVF by topic would have. */
function topicCentres(all: Float32Array, dim: number, topicOf: (row: number) => number): Float64Array {
  const rows = all.length / dim;
  let topics = 0;
  for (let i = 0; i < rows; i++) topics = Math.max(topics, topicOf(i) + 1);
  const out = new Float64Array(topics * dim);
  for (let i = 0; i < rows; i++) {
    const t = topicOf(i) * dim;
    for (let j = 0; j < dim; j++) out[t + j]! += all[i * dim + j]!;
  }
  return out;
}

/** 1-based rank of centre `which` among `centres` by cosine to `q`. */
function rankOf(centres: Float64Array, dim: number, q: Float32Array, which: number): number {
  const cosines: number[] = [];
  for (let t = 0; t * dim < centres.length; t++) {
    let dot = 0;
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      dot += centres[t * dim + j]! * q[j]!;
      norm += centres[t * dim + j]! ** 2;
    }
    cosines.push(dot / Math.sqrt(norm || 1));
  }
  return 1 + cosines.filter((c) => c > cosines[which]!).length;
}

/**
 * How the top rows of a query lie: their mean cosine to the query and to one another,
 * and, for scale, of rows drawn at random. Neighbours nearer the query than to one
 * another surround it from different sides, where IVF partitions cut between them.
 */
function spreadOf(
  all: Float32Array,
  dim: number,
  top: number[],
  sims: Float64Array,
  out: { toQuery: number[]; pairs: number[]; random: number[] },
): void {
  const cos = (a: number, b: number) => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += all[a * dim + j]! * all[b * dim + j]!;
    return s;
  };
  let pairs = 0;
  let n = 0;
  for (let a = 0; a < top.length; a++) for (let b = a + 1; b < top.length; b++, n++) pairs += cos(top[a]!, top[b]!);
  let baseline = 0;
  const rows = sims.length;
  const rnd = random(top[0]!);
  for (let i = 0; i < n; i++) baseline += cos(Math.floor(rnd() * rows), Math.floor(rnd() * rows));
  out.toQuery.push(top.reduce((sum, i) => sum + sims[i]!, 0) / top.length);
  out.pairs.push(pairs / n);
  out.random.push(baseline / n);
}

/** Prints the exact similarities of ranks 1–50, the near-ties of the 10th, and LanceDB flat vs JavaScript. */
export async function analyseTies(
  table: Table,
  all: Float32Array,
  ids: string[],
  dim: number,
  queries: Float32Array[],
  topicOf?: (row: number) => number,
  k = 10,
): Promise<void> {
  const atRank = RANKS.map(() => [] as number[]);
  const beyond = WINDOWS.map(() => [] as number[]);
  const agree = new RecallTally(k);
  const spread = { toQuery: [] as number[], pairs: [] as number[], random: [] as number[] };
  const rowOf = new Map(ids.map((id, i) => [id, i]));
  const sameTopic: number[] = [];
  const topicRank: number[] = [];
  const centres = topicOf ? topicCentres(all, dim, topicOf) : null;
  for (const q of queries) {
    const sims = similarities(all, dim, q);
    const order = Array.from(sims.keys())
      .sort((a, b) => sims[b]! - sims[a]!)
      .slice(0, 50);
    RANKS.forEach((r, i) => {
      atRank[i]!.push(sims[order[r - 1]!]!);
    });
    const s10 = sims[order[k - 1]!]!;
    // Rows outside the top k at most `window` less similar than the k-th: as good an answer as it, within the window.
    WINDOWS.forEach(([, w], i) => {
      const floor = s10 - w(s10);
      let n = 0;
      for (const s of sims) if (s >= floor) n++;
      beyond[i]!.push(n - k);
    });
    spreadOf(all, dim, order.slice(0, k), sims, spread);
    if (topicOf && centres) {
      const topics = order.slice(0, k).map(topicOf);
      sameTopic.push(largestGroup(topics));
      topicRank.push(rankOf(centres, dim, q, mostCommon(topics)));
    }
    // LanceDB's flat scan judged against the JavaScript one, by id and with ties.
    const lance = [...(await flatTopK(table, q, k))];
    const js = new Set(order.slice(0, k).map((i) => ids[i]!));
    agree.add(recallHits(lance, js, (id) => 1 - sims[rowOf.get(id)!]!, k));
  }
  console.log(`ties: exact cosine similarity by rank over ${queries.length} queries (JavaScript scan, float64 sums)`);
  console.table(
    Object.fromEntries(
      RANKS.map((r, i) => {
        const s = stats(atRank[i]!);
        return [`rank ${r}`, { min: fmt(s.min), median: fmt(s.median), p90: fmt(s.p90), max: fmt(s.max) }];
      }),
    ),
  );
  const gap = (a: number, b: number) => stats(atRank[a]!.map((s, i) => s - atRank[b]![i]!));
  for (const [a, b] of [
    [4, 5],
    [4, 8],
    [4, 10],
  ] as const) {
    const g = gap(a, b);
    console.log(
      `  similarity rank ${RANKS[a]} − rank ${RANKS[b]}: median ${fmt(g.median)}, min ${fmt(g.min)}, max ${fmt(g.max)}`,
    );
  }
  console.log(`rows beyond the top ${k} within a window below the ${k}th similarity (per query):`);
  console.table(
    Object.fromEntries(
      WINDOWS.map(([name], i) => {
        const s = stats(beyond[i]!);
        const some = beyond[i]!.filter((n) => n > 0).length;
        return [name, { median: s.median, p90: s.p90, max: s.max, "queries with any": `${some}/${queries.length}` }];
      }),
    ),
  );
  const med = (xs: number[]) => fmt(stats(xs).median);
  console.log(
    `cosine of the top ${k} (median over queries): to the query ${med(spread.toQuery)}, to one another ${med(spread.pairs)}; two random rows ${med(spread.random)}`,
  );
  if (topicOf) {
    const s = stats(sameTopic);
    console.log(`rows of the top ${k} in their most common topic: median ${s.median}, min ${s.min}, max ${s.max}`);
    const r = stats(topicRank);
    console.log(
      `rank of that topic's mean vector among all topics' by cosine to the query: median ${r.median}, p90 ${r.p90}, max ${r.max} of ${centres!.length / dim}`,
    );
  }
  console.log(`LanceDB flat scan vs JavaScript scan, top ${k}: recall ${agree.format()}`);
}
