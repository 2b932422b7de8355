/**
 * Keyword hits of a few rows (a search narrowed to some chunk ids, or to a few sources),
 * scored as the search's own keyword list scores them. LanceDB scores a row outside the
 * full-text index (written since upkeep last caught the index up) by the statistics of the
 * rows a search is narrowed to, so in such a look-up a word found mostly in new rows
 * weighed far more than in the list: 0.604 where 0.543 was due in test/hybrid-tail.test.ts.
 * Where the table may hold such rows (`tail`), the look-up is made twice, with and without
 * them: an indexed row's score is exact, and a row only the second finds is looked for in
 * the list itself, read DEEPER times deeper each round up to DEEPEST_ROWS until it holds
 * it; one still missing at that depth gets the list's last score, an upper bound of its
 * own (docs/notes/2026-12-07-tail-scores.md). With `fast`, the lists leave such rows out
 * and one look-up is exact.
 */
import type { Table } from "@lancedb/lancedb";
import { allDone } from "../tools/all-done";
import { DEEPER, DEEPEST_ROWS } from "./clause-search";
import type { Ranked } from "./hits";
import { type KeywordText, keywordHits } from "./keyword-hits";
import type { KeywordReading } from "./table-search";

/** A keyword look-up of a few rows, and the list whose scores it gives. */
export interface NarrowedKeyword {
  /** SQL keeping the rows looked at (a few chunk ids or sources), and at most how many hits. */
  narrowing: string;
  limit: number;
  /** The search's own filter (without the narrowing), and how deep its keyword list was read. */
  filter: string | null;
  depth: number;
  /** The table may hold rows outside its full-text index. */
  tail: boolean;
}

/** The look-up's hits, best first, each scored as the search's keyword list scores it. */
export async function narrowedKeywordHits(
  table: Table,
  text: KeywordText,
  look: NarrowedKeyword,
  reading: KeywordReading,
): Promise<Ranked[]> {
  const lookUp = (fast: boolean) => keywordHits(table, text, look.limit, look.narrowing, { ...reading, fast });
  if (!look.tail || reading.fast) return lookUp(reading.fast === true);
  const [all, indexed] = await allDone([lookUp(false), lookUp(true)]);
  const isIndexed = new Set(indexed.map((h) => h.id));
  const inTail = all.filter((h) => !isIndexed.has(h.id));
  if (inTail.length === 0) return indexed;
  const scores = await listScores(table, text, inTail, look, reading);
  // A row the list does not hold at all has no query term there (deleted since): left out.
  const tailHits = inTail.flatMap((h) => (scores.has(h.id) ? [{ ...h, score: scores.get(h.id)! }] : []));
  return [...indexed, ...tailHits].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The scores of `hits` (each with a query term) in the keyword list read deeper than `look.depth`. */
async function listScores(
  table: Table,
  text: KeywordText,
  hits: Ranked[],
  look: NarrowedKeyword,
  reading: KeywordReading,
): Promise<Map<string, number>> {
  const wanted = new Set(hits.map((h) => h.id));
  const deepest = Math.max(look.depth, DEEPEST_ROWS);
  for (let limit = Math.min(look.depth * DEEPER, deepest); ; limit = Math.min(limit * DEEPER, deepest)) {
    // Scores alone: no text read.
    const read = await keywordHits(table, text, limit, look.filter, { ...reading, bare: true });
    const scores = new Map(read.filter((h) => wanted.has(h.id)).map((h) => [h.id, h.score]));
    if (scores.size === wanted.size || read.length < limit) return scores;
    if (limit >= deepest) {
      for (const id of wanted) if (!scores.has(id)) scores.set(id, read.at(-1)!.score);
      return scores;
    }
  }
}
