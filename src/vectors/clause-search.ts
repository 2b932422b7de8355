/**
 * A full-text search of several OR-ed clauses (full-text.ts: a query's terms, their
 * variants, its sub-word grams), one LanceDB query per clause. LanceDB 0.37's BooleanQuery
 * scores every match of each clause before it keeps the best: on a table of 1,000,000
 * chunks whose grams column holds every chunk's trigrams, a two-word query's grams match
 * most rows and its BooleanQuery took 1.1–1.4 s, where each clause alone, a match query
 * that skips the blocks that cannot rank, took 10–20 ms (50 rows) to 40–50 ms (3,200)
 * (docs/notes/2026-12-07-keyword-clauses.md).
 *
 * A BooleanQuery's score is the sum of its clauses' scores (checked on the bench table to
 * 4e-6), so the sum of the clauses' own searches ranks as it did. Each clause's best
 * `limit` rows are read; a row found by some lists only scores at most the last score of
 * each list it is missing from (0 where that list is shorter than asked: it holds every
 * match). While a row whose best case could still reach the `limit`-th best worst case
 * misses a clause's score, that clause's list is read DEEPER times deeper, up to
 * DEEPEST_ROWS rows; a score still missing then counts 0. Its scores are never looked up
 * by a search narrowed to the row: LanceDB scores the rows outside the full-text index
 * (a table's newest) by the statistics of the rows such a search keeps, not the table's.
 * Like hybrid search (search.ts), it cannot see a row that no clause list holds; such a
 * row scores at most the sum of the lists' last scores.
 */
import type { FullTextQuery } from "@lancedb/lancedb";
import { allDone } from "../tools/all-done";

/** How much deeper a clause's list is read each time a contender misses its score. */
export const DEEPER = 4;
/** The deepest a clause's list is read (unless `limit` asks for more). */
export const DEEPEST_ROWS = 5000;

/** A hit of one clause list, or of the merged list: `score` is its BM25 (a sum of clauses' in the merged list). */
interface Scored {
  id: string;
  score: number;
}

/** One clause's best `limit` rows among those the search keeps, best first. */
export type ClauseList<T extends Scored> = (clause: FullTextQuery, limit: number) => Promise<T[]>;

/** The best `limit` rows by the sum of their clauses' scores, best first (ties by id), as one BooleanQuery of the clauses would rank them. */
export async function searchClauses<T extends Scored>(
  clauses: FullTextQuery[],
  limit: number,
  list: ClauseList<T>,
  deepest = DEEPEST_ROWS,
  atOnce = false,
): Promise<T[]> {
  if (clauses.length === 1) return list(clauses[0]!, limit);
  const depths = clauses.map(() => limit);
  const lists = await allDone(clauses.map((c) => list(c, limit)));
  const most = Math.max(limit, deepest);
  for (;;) {
    const ranked = ranking(lists, depths, limit);
    const deeper = ranked.missing.filter((c) => depths[c]! < most);
    if (deeper.length === 0) return ranked.best;
    for (const c of deeper) depths[c] = atOnce ? most : Math.min(depths[c]! * DEEPER, most);
    const read = await allDone(deeper.map((c) => list(clauses[c]!, depths[c]!)));
    deeper.forEach((c, i) => {
      lists[c] = read[i]!;
    });
  }
}

/**
 * The best `limit` rows of the lists by the scores they hold (a missing one counts 0), and
 * the clauses whose lists leave a score missing that could change them.
 */
function ranking<T extends Scored>(lists: T[][], depths: number[], limit: number): { best: T[]; missing: number[] } {
  const rows = new Map<string, { hit: T; scores: (number | undefined)[] }>();
  lists.forEach((found, c) => {
    for (const hit of found) {
      const row = rows.get(hit.id) ?? { hit, scores: lists.map(() => undefined) };
      row.scores[c] = hit.score;
      rows.set(hit.id, row);
    }
  });
  const bound = lists.map((found, c) => (found.length < depths[c]! ? 0 : found.at(-1)!.score));
  const low = (s: (number | undefined)[]) => s.reduce<number>((sum, x) => sum + (x ?? 0), 0);
  const high = (s: (number | undefined)[]) => s.reduce<number>((sum, x, c) => sum + (x ?? bound[c]!), 0);
  const lows = [...rows.values()].map((r) => low(r.scores)).sort((a, b) => b - a);
  const threshold = lows[Math.min(limit, lows.length) - 1] ?? 0;
  // A row whose best case is below the threshold ranks below `limit` others.
  const contenders = [...rows.values()].filter((r) => high(r.scores) >= threshold);
  const missing = lists
    .map((_, c) => c)
    .filter((c) => bound[c]! > 0 && contenders.some((r) => r.scores[c] === undefined));
  const best = contenders
    .map((r) => ({ ...r.hit, score: low(r.scores) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit);
  return { best, missing };
}
