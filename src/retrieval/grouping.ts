/**
 * How the searcher picks topK results from its ranked pool (docs/API.md, Query):
 * by `groupBy: "source"` (the best `perSource` chunks of each of topK sources), else
 * by `diversity` (maximal marginal relevance, diversity.ts), else the first topK.
 *
 * A grouped search ranks a deeper pool than topK, GROUP_POOL_FACTOR × topK × perSource
 * chunks (at least GROUP_POOL_MIN, at most GROUP_POOL_MAX), and groups it: sources are
 * ordered by their best chunk, each keeps its best perSource chunks, in score order.
 * When the pool holds fewer than topK sources (the collection has few, or a few sources
 * fill the pool with their chunks), fewer are returned; a source is never split across
 * two places in the list.
 */
import { type Diversifiable, diversify } from "./diversity";
import type { ResolvedSearch } from "./request";

export const MAX_PER_SOURCE = 10;
export const GROUP_POOL_FACTOR = 4;
export const GROUP_POOL_MIN = 50;
export const GROUP_POOL_MAX = 1000;

/** The pool the searcher ranks before it picks: deeper for diversity, boosts (boost.ts) and grouping. */
export function poolDepth(req: ResolvedSearch, least = req.topK): number {
  if (req.perSource !== undefined) {
    const deep = Math.max(req.topK * req.perSource * GROUP_POOL_FACTOR, GROUP_POOL_MIN);
    return Math.max(least, Math.min(deep, GROUP_POOL_MAX));
  }
  return req.diversity > 0 || req.boost ? Math.max(req.topK * 4, 50, least) : least;
}

/** The results to answer with, picked from `ranked` (best first) as the request asks. */
export function pickResults<T extends Diversifiable & { metadata: { sourceId: string } }>(
  ranked: T[],
  req: ResolvedSearch,
  relevance?: (c: T, i: number, n: number) => number,
): T[] {
  if (req.perSource !== undefined) return groupBySource(ranked, req.topK, req.perSource);
  return diversify(ranked, req.topK, req.diversity, relevance);
}

/** The first `perSource` of each of the first `topK` sources of `ranked`, a source's together, best source first. */
export function groupBySource<T extends { metadata: { sourceId: string } }>(
  ranked: T[],
  topK: number,
  perSource: number,
): T[] {
  const groups = new Map<string, T[]>();
  for (const r of ranked) {
    const id = r.metadata.sourceId;
    const group = groups.get(id);
    if (group) {
      if (group.length < perSource) group.push(r);
    } else if (groups.size < topK) groups.set(id, [r]);
  }
  return [...groups.values()].flat();
}
