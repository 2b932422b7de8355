/**
 * How the searcher picks topK results from its ranked pool (docs/API.md, Query):
 * by `groupBy: "source"` (the best `perSource` chunks of each of topK sources), else
 * by `diversity` (maximal marginal relevance, diversity.ts), else the first topK.
 *
 * A grouped search picks its topK sources from a pool of GROUP_POOL_FACTOR × topK chunks
 * (at least GROUP_POOL_MIN), ordered by their best chunk. Without a boost it first ranks
 * only FIRST_POOL_FACTOR × topK (firstPoolDepth): the first M chunks of an exact ranking
 * are the first M of any deeper one, so when they hold topK sources (or every match) those
 * are the sources the deeper pool would give; only otherwise is the deeper pool ranked.
 * Each chunk of a pool gets its exact score, and looking up the missing halves of 50 cost
 * a grouped query ×1.2–1.4 of a plain one at 1,000,000 chunks, where 20 cost ×1.0
 * (docs/notes/2026-12-07-group-pool.md). The pool's hybrid lists read as
 * deep as a plain query's (poolLists): every chunk they hold gets its exact score, and a
 * chunk neither holds ranks below them, as in a plain query; lists four times the pool made
 * a grouped query cost ×1.3–1.5 of a plain one at 1,000,000 chunks, and chose the same
 * sources in 200 of 200 grouped queries of the bench (docs/notes/2026-12-06-query-options.md,
 * last section). With perSource above 1, the searcher then asks for the best chunks (at
 * most groupDepth of them) of those of them the pool holds fewer than perSource chunks of
 * (shortSources), in one look at those sources
 * alone: their chunks ranked by exact lists, or a search narrowed to them when those cannot
 * (vectors/source-chunks.ts), and each source keeps its best perSource, in score order: a
 * chunk's score does not depend on the lists it was found in (vectors/search.ts), so the
 * sources keep their order, and a source's chunks are its best, not those a shared pool
 * happened to hold. When the pool holds fewer than topK sources (the collection has few,
 * or a few sources fill the pool with their chunks), fewer are returned; a source is
 * never split across two places in the list.
 */
import { type Diversifiable, diversify } from "./diversity";
import type { ResolvedSearch } from "./request";

export const MAX_PER_SOURCE = 10;
export const GROUP_POOL_FACTOR = 4;
export const GROUP_POOL_MIN = 50;
export const GROUP_POOL_MAX = 1000;
/** The first pool a grouped search without a boost ranks, as a multiple of topK (firstPoolDepth). */
export const FIRST_POOL_FACTOR = 2;

/** The pool the searcher ranks before it picks: deeper for diversity, boosts (boost.ts) and grouping. */
export function poolDepth(req: ResolvedSearch, least = req.topK): number {
  if (req.perSource !== undefined) return Math.max(least, Math.max(req.topK * GROUP_POOL_FACTOR, GROUP_POOL_MIN));
  return req.diversity > 0 || req.boost ? Math.max(req.topK * 4, 50, least) : least;
}

/**
 * The pool a grouped search ranks first: FIRST_POOL_FACTOR × topK without a boost (a boost
 * may raise a chunk from anywhere in the deeper pool), else poolDepth.
 */
export function firstPoolDepth(req: ResolvedSearch): number {
  const depth = poolDepth(req);
  return req.perSource === undefined || req.boost ? depth : Math.min(depth, req.topK * FIRST_POOL_FACTOR);
}

/**
 * Whether a grouped search's first pool (`depth` deep) settles its sources: it holds topK
 * of them, or every match (`complete`: the search found fewer than asked).
 */
export function poolSettles(
  pool: { metadata: { sourceId: string } }[],
  { depth, complete }: { depth: number; complete: boolean },
  req: ResolvedSearch,
): boolean {
  if (complete || depth >= poolDepth(req)) return true;
  return new Set(pool.map((r) => r.metadata.sourceId)).size >= req.topK;
}

/** A grouped pool's hybrid lists read as deep as a plain query's (TableSearch.listsFor). */
export function poolLists(req: ResolvedSearch): { listsFor?: number } {
  return req.perSource === undefined ? {} : { listsFor: req.topK };
}

/** The chunks asked of `sources` chosen sources (or of a reranker's pool) for perSource chunks each; 0 ungrouped. */
export function groupDepth(req: ResolvedSearch, sources = req.topK): number {
  if (req.perSource === undefined) return 0;
  const deep = Math.max(sources * req.perSource * GROUP_POOL_FACTOR, GROUP_POOL_MIN);
  return Math.min(deep, GROUP_POOL_MAX);
}

/** The first `topK` distinct sources of `ranked` (best first), in order. */
export function firstSources(ranked: { metadata: { sourceId: string } }[], topK: number): string[] {
  const ids = new Set<string>();
  for (const r of ranked) if (ids.size < topK) ids.add(r.metadata.sourceId);
  return [...ids];
}

/**
 * The pool's first topK sources that it holds fewer than perSource chunks of (none without
 * perSource above 1). A chunk outside the pool scores no higher than any inside, and a
 * boost scales a source's chunks alike, so a source the pool holds perSource chunks of has
 * its best in it; the searcher asks only the others for their chunks.
 */
export function shortSources(pool: { metadata: { sourceId: string } }[], req: ResolvedSearch): string[] {
  const perSource = req.perSource ?? 1;
  if (perSource === 1) return [];
  const counts = new Map<string, number>();
  for (const r of groupBySource(pool, req.topK, perSource))
    counts.set(r.metadata.sourceId, (counts.get(r.metadata.sourceId) ?? 0) + 1);
  return [...counts].filter(([, n]) => n < perSource).map(([id]) => id);
}

/**
 * The pool's chunks of its first topK sources, those of the `short` ones replaced by
 * `narrowed` (their chunks from a look at them alone), best first, to group from.
 */
export function withNarrowed<T extends { score: number; metadata: { sourceId: string } }>(
  pool: T[],
  req: ResolvedSearch,
  short: string[],
  narrowed: T[],
): T[] {
  const kept = new Set(firstSources(pool, req.topK));
  for (const id of short) kept.delete(id);
  // A stable sort: the narrowed chunks after the pool's of equal score, each list's order kept.
  return [...pool.filter((r) => kept.has(r.metadata.sourceId)), ...narrowed].sort((a, b) => b.score - a.score);
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
