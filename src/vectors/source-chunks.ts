/**
 * Every chunk of a few sources, each scored as a search of them scores it (search.ts): a
 * grouped search's second look at the sources it chose (retrieval/grouping.ts,
 * TableSearch.readWhole). Those sources are few and most are short, so their rows are
 * ranked whole by an exact vector list, flat over the rows their document ids pick (the
 * b-tree index), read with their text; in hybrid mode one keyword list narrowed to the same
 * rows runs beside it and gives the keyword scores (a row it lacks shares no term with the
 * query: 0), blended as hybrid search blends them (fusion.ts). Both lists hold every row,
 * so no score is missing and none is looked up.
 *
 * A search narrowed to the same sources counted the filter's rows first (to choose between
 * an exact and an index path, vector-hits.ts), then made the same two lists without text,
 * then read the kept rows' text: three steps in sequence where this makes one, after a
 * count (docs/notes/2026-12-06-query-options.md). Sources holding SOURCE_ROWS
 * chunks or more together are left to that search (null here). The searcher passes the
 * sources' chunk count from SQLite (TableSearch.wholeRows), which saves the table's count
 * (1.5–2 ms of a 10–13 ms look at 100,000 chunks); a list that comes back full shows that
 * count was stale, and the search ranks them instead.
 */
import type { Table } from "@lancedb/lancedb";
import { fuse } from "./fusion";
import { hitColumns, type Ranked } from "./hits";
import { type KeywordText, keywordHits } from "./keyword-hits";
import type { KeywordReading, TableSearch } from "./table-search";
import { toHits } from "./vector-hits";
import { allDone } from "../tools/all-done";

/**
 * Sources holding fewer chunks than this together are ranked whole. On the bench's
 * 100,000-chunk table the look at 10 sources of 10 chunks took 13.0 ms p50 against the
 * search's 21.4, at 250 rows 14.0 against 20.6, at 500 19.4 against 22.4 (one count less),
 * and lists 1,000 deep over 1,200 rows 88 against 40.
 */
export const SOURCE_ROWS = 400;

/**
 * Every row `filter` keeps (one that names a few sources' document ids), scored in `req`'s
 * mode, vector or hybrid, best first; null when it keeps SOURCE_ROWS rows or more.
 */
export async function sourceChunks(
  table: Table,
  req: TableSearch,
  filter: string,
  keyword: KeywordText,
  reading: KeywordReading,
): Promise<Ranked[] | null> {
  // Counted first (SQLite's count when given, else the b-tree index, 1–3 ms): lists of many
  // rows would cost more than the search.
  if ((req.wholeRows ?? (await table.countRows(filter))) >= SOURCE_ROWS) return null;
  const exact = table
    .vectorSearch(req.vector!)
    .distanceType("cosine")
    .bypassVectorIndex()
    .where(filter)
    .select([...hitColumns(false, req.labels), "_distance"])
    .limit(SOURCE_ROWS)
    .toArrow();
  const [rows, key] = await allDone([
    exact,
    req.mode === "hybrid" ? keywordHits(table, keyword, SOURCE_ROWS, filter, { ...reading, bare: true }) : [],
  ]);
  // Rows written since the count, or a stale count, may fill the list: the search ranks them then.
  if (rows.numRows >= SOURCE_ROWS) return null;
  const byVector = toHits(rows);
  return req.mode === "hybrid" ? blended(byVector, key, req) : byVector;
}

/**
 * The two lists' rows blended as hybridHits blends them (search.ts). The keyword list's
 * matches are among the vector list's rows; one that is not was written after that list
 * was read, and is left out, as a row deleted meanwhile is.
 */
function blended(byVector: Ranked[], key: Ranked[], req: TableSearch): Ranked[] {
  const listed = new Map(byVector.map((h) => [h.id, h]));
  const byKeyword = key.flatMap((k) => listed.get(k.id) ?? []);
  const keyScore = new Map(key.map((h) => [h.id, h.score]));
  const alpha = req.hybridAlpha ?? 0.5;
  // The list that weighs more first, so ties keep its order (as in hybridHits).
  const [first, second] = alpha > 0.5 ? [byVector, byKeyword] : [byKeyword, byVector];
  const seen = new Set<string>();
  const candidates = [...first, ...second]
    .filter((h) => !seen.has(h.id) && seen.add(h.id))
    .map((h) => ({ ...h, keyword: keyScore.get(h.id) ?? 0, vector: h.score }));
  // At α = 0 the vector half has no say: as in keyword mode, a chunk needs a query term.
  return fuse(candidates, alpha)
    .filter((h) => alpha > 0 || h.keyword > 0)
    .map(({ keyword: _k, vector: _v, ...h }) => h);
}
