/**
 * Keyword hits of a few rows (a search narrowed to some chunk ids, or to a few sources),
 * scored as the search's own keyword list scores them. LanceDB scores a row outside the
 * full-text index (written since upkeep last caught the index up) by the statistics of the
 * rows a search is narrowed to, so in such a look-up a word found mostly in new rows
 * weighed far more than in the list: 0.604 where 0.543 was due in test/hybrid-tail.test.ts.
 * Where the table may hold such rows (`tail`), the look-up is made twice, with and without
 * them: an indexed row's score is exact, and the rows only the second finds are looked for
 * in the list itself, read once DEEPEST_ROWS deep; one still missing there gets the list's
 * last score, an upper bound of its own (docs/notes/2026-12-07-tail-scores.md). With
 * `fast`, the lists leave such rows out and one look-up is exact.
 *
 * One deep read, not rounds each four times deeper: every read of a list scans the whole
 * tail again, so on a 100,000-row table hybrid p50 / p90 went 85.4 / 667.3 → 54.1 / 273.6
 * ms with a 5,000-row tail and 203.3 / 2,083.7 → 116.8 / 711.7 ms with 20,000
 * (bench/tail-cost.ts; docs/notes/2026-12-07-ten-million.md).
 */
import type { Table } from "@lancedb/lancedb";
import { allDone } from "../tools/all-done";
import { DEEPEST_ROWS } from "./clause-search";
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

/** The scores of `hits` (each with a query term) in the keyword list read DEEPEST_ROWS deep (or as deep as the search read it, if deeper). */
async function listScores(
  table: Table,
  text: KeywordText,
  hits: Ranked[],
  look: NarrowedKeyword,
  reading: KeywordReading,
): Promise<Map<string, number>> {
  const wanted = new Set(hits.map((h) => h.id));
  const limit = Math.max(look.depth, DEEPEST_ROWS);
  // Scores alone: no text read.
  const read = await keywordHits(table, text, limit, look.filter, { ...reading, bare: true });
  const scores = new Map(read.filter((h) => wanted.has(h.id)).map((h) => [h.id, h.score]));
  // A list shorter than asked holds every match: a row it lacks has no query term.
  if (read.length < limit) return scores;
  for (const id of wanted) if (!scores.has(id)) scores.set(id, read.at(-1)!.score);
  return scores;
}
