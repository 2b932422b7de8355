/**
 * Ranking-quality figures, shared by the evaluation API (features/evals) and the
 * quality benchmarks (bench/quality.ts), so both score a ranking the same way
 * (docs/API.md, Evaluation). A ranking is a list of ids, best first; `rel` maps
 * an id to its graded relevance (0 or absent = not relevant). The definitions
 * are BEIR's, as pytrec_eval computes them.
 */

/** Relevance of each id in `ids`, all 1: the binary judgments of an evaluation set. */
export function binaryRelevance(ids: Iterable<string>): Map<string, number> {
  return new Map([...ids].map((id) => [id, 1]));
}

/** The distinct ids in order of first appearance: a source ranks where its best chunk ranks. */
export function distinctInOrder(ids: Iterable<string>): string[] {
  return [...new Set(ids)];
}

/** nDCG@k with linear gain and log2 discount (trec_eval's ndcg_cut); 0 when nothing is relevant. */
export function ndcg(ranked: string[], rel: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, d, i) => sum + (rel.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...rel.values()]
    .filter((r) => r > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, r, i) => sum + r / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** The share of the relevant ids found in the first k. */
export function recall(ranked: string[], rel: Map<string, number>, k: number): number {
  const relevant = [...rel].filter(([, r]) => r > 0).map(([d]) => d);
  const top = new Set(ranked.slice(0, k));
  return relevant.length ? relevant.filter((d) => top.has(d)).length / relevant.length : 0;
}

/** 1 when a relevant id is among the first k, else 0. */
export function hitAt(ranked: string[], rel: Map<string, number>, k: number): number {
  return ranked.slice(0, k).some((d) => (rel.get(d) ?? 0) > 0) ? 1 : 0;
}

/** 1 / the rank of the first relevant id (1-based), 0 when none is ranked. */
export function reciprocalRank(ranked: string[], rel: Map<string, number>): number {
  const i = ranked.findIndex((d) => (rel.get(d) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** The mean of each figure over a list of per-query figures (0 for an empty list). */
export function meanOf<K extends string>(rows: Record<K, number>[], keys: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of keys) out[k] = rows.length ? rows.reduce((s, r) => s + r[k], 0) / rows.length : 0;
  return out;
}
