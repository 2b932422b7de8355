/**
 * How hybrid search blends its two halves (docs/API.md, Scores and the hybrid
 * blend). A hybrid score is the convex combination
 *
 *   score = α · vectorScore + (1 − α) · keywordScore
 *
 * of the scores the chunk gets in vector mode and in keyword mode, both absolute
 * (cosine similarity; saturated BM25 per query term), never rescaled per query. So
 * a chunk's score does not depend on which candidate lists it was found in, α = 0
 * ranks and scores exactly as keyword mode and α = 1 as vector mode, and
 * `minScore` means the same in every mode.
 *
 * Chosen by measurement (bench/fusion-tune.ts): on SciFact half a, weighted
 * reciprocal rank fusion (k 1..60), per-query min-max and distribution-based
 * (mean ± 3σ) normalisation all lost to this on the half they were not tuned on
 * or on SQuAD; rank fusion also throws away how far apart two scores are.
 */

/** The blend for an index built with the built-in embedder, measured (docs/notes/2026-12-06-retrieval-quality.md). */
export const BUILTIN_HYBRID_ALPHA = 0.1;
/** The blend for an index built with builtin-glove, measured the same way (docs/API.md, The built-in models). */
export const GLOVE_HYBRID_ALPHA = 0.2;
/**
 * The blend for every other embedder. Not measured: no sentence-embedding model
 * could be run here, so it trusts both lists equally, as Weaviate's default does.
 */
export const MODEL_HYBRID_ALPHA = 0.5;

/**
 * The score below which a chunk is taken as noise rather than an answer
 * (docs/API.md, Scores and the hybrid blend): a response whose best result is
 * below it says `noRelevantResults: true`. Below it a chunk shares no rare word
 * with the query and is not close in meaning. Low on purpose: BM25 scores shrink
 * in small collections (rare words are rarer in large ones), and on SciFact and
 * SQuAD no query's best result scored under 0.2.
 */
export const RELEVANCE_FLOOR = 0.05;

/** The default blend for an index built with `model`. */
export function defaultHybridAlpha(model: string): number {
  const m = model.trim();
  if (m === "builtin") return BUILTIN_HYBRID_ALPHA;
  return m === "builtin-glove" ? GLOVE_HYBRID_ALPHA : MODEL_HYBRID_ALPHA;
}

/** One chunk with both of its scores, each in [0, 1]. */
export interface ScoredPair {
  keyword: number;
  vector: number;
}

/** The hybrid score of one chunk at blend `alpha`. */
export function blend(s: ScoredPair, alpha: number): number {
  return Math.min(1, Math.max(0, alpha * s.vector + (1 - alpha) * s.keyword));
}

/**
 * Orders chunks by their blended score, best first. `candidates` come in the
 * order of the list that weighs more, and the sort is stable, so ties keep that
 * list's order (α = 0 or 1 then reproduces a single mode exactly).
 */
export function fuse<T extends ScoredPair>(candidates: T[], alpha: number): (T & { score: number })[] {
  return candidates.map((c) => ({ ...c, score: blend(c, alpha) })).sort((a, b) => b.score - a.score);
}
