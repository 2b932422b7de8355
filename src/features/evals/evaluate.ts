/**
 * Runs an evaluation set against one generation of a pipeline, in each search mode,
 * and scores every query (docs/API.md, Evaluation). A result is relevant when its
 * source is among the query's expected sources; the ranking scored is the list of
 * distinct sources in the order of their best chunk among the k results. The
 * figures themselves are retrieval/metrics.ts's, shared with the benchmarks.
 */
import type { Collection } from "../../db/schema";
import { binaryRelevance, distinctInOrder, hitAt, meanOf, ndcg, reciprocalRank } from "../../retrieval/metrics";
import type { SearchMode } from "../../retrieval/request";
import type { Searcher } from "../../retrieval/searcher";

/** One test query and the sources that should answer it. */
export interface EvalQuery {
  query: string;
  expectedSourceIds: string[];
}

export const FIGURES = ["hitAt1", "hitAtK", "mrr", "ndcgAt10"] as const;
export type Figures = Record<(typeof FIGURES)[number], number>;

/** One query's figures in one mode, with the sources it ranked (best first). */
export interface QueryFigures extends Figures {
  rankedSourceIds: string[];
}

export interface EvalResult {
  k: number;
  modes: SearchMode[];
  /** The index generation searched. */
  generation: number;
  /** False when the time budget ran out: the figures cover the first `evaluated` queries. */
  complete: boolean;
  evaluated: number;
  durationMs: number;
  overall: Partial<Record<SearchMode, Figures>>;
  queries: (EvalQuery & { modes: Partial<Record<SearchMode, QueryFigures>> })[];
}

export interface EvalOptions {
  modes: SearchMode[];
  k: number;
  /** The generation to search; the active one by default. */
  generation?: number;
  /** Stops asking new queries once this much time has gone (docs/API.md, Evaluation). */
  budgetMs: number;
}

/** The figures of one ranking of sources against the expected ones. */
export function scoreRanking(rankedSourceIds: string[], expected: string[]): Figures {
  const rel = binaryRelevance(expected);
  return {
    hitAt1: hitAt(rankedSourceIds, rel, 1),
    hitAtK: hitAt(rankedSourceIds, rel, rankedSourceIds.length),
    mrr: reciprocalRank(rankedSourceIds, rel),
    ndcgAt10: ndcg(rankedSourceIds, rel, 10),
  };
}

/** Asks every query of the set in every mode, one search at a time, within the time budget. */
export async function evaluate(
  searcher: Searcher,
  collection: Collection,
  queries: EvalQuery[],
  o: EvalOptions,
): Promise<EvalResult> {
  const t0 = performance.now();
  const rows: EvalResult["queries"] = [];
  let complete = true;
  for (const q of queries) {
    if (performance.now() - t0 > o.budgetMs) {
      complete = false;
      break;
    }
    const modes: Partial<Record<SearchMode, QueryFigures>> = {};
    for (const mode of o.modes) {
      const answer = await searcher.search(collection, { query: q.query, topK: o.k, mode }, o.generation);
      const ranked = distinctInOrder(answer.results.map((r) => r.metadata.sourceId));
      modes[mode] = { ...scoreRanking(ranked, q.expectedSourceIds), rankedSourceIds: ranked };
    }
    rows.push({ ...q, modes });
  }
  const overall: EvalResult["overall"] = {};
  for (const mode of o.modes)
    overall[mode] = meanOf(
      rows.map((r) => r.modes[mode]!),
      FIGURES,
    );
  return {
    k: o.k,
    modes: o.modes,
    generation: o.generation ?? collection.activeGeneration,
    complete,
    evaluated: rows.length,
    durationMs: Math.round(performance.now() - t0),
    overall,
    queries: rows,
  };
}
