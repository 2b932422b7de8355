/**
 * Keyword hits: BM25 from LanceDB's full-text index, mapped by per-term saturation
 * (search.ts explains the map), the query's clauses OR-ed (clause-search.ts).
 */
import type { FullTextQuery, Table } from "@lancedb/lancedb";
import { DEEPER, DEEPEST_ROWS, searchClauses } from "./clause-search";
import { type AnalysedQuery, fullTextClauses, matchableText } from "./full-text";
import { COLUMNS, hitsOf, LIST_COLUMNS, numbersOf, type Ranked, saturate, vectorsByRowId } from "./hits";
import type { KeywordReading, Tokenize } from "./table-search";
import { inList } from "./tables";
import { allDone } from "../tools/all-done";

/** The text of a keyword search, and its analysis on a table with analysed text. */
export interface KeywordText {
  text: string;
  analysed?: AnalysedQuery;
}

/**
 * Keyword hits; with `withVectors`, each carries its stored vector (hybrid scores keyword-only
 * hits with it); with `fast`, of the rows in the full-text index only (SearchOptions.indexedTextOnly);
 * `bare`, without their text (hits.ts, LIST_COLUMNS).
 */
export async function keywordHits(
  table: Table,
  text: KeywordText,
  limit: number,
  filter: string | null,
  { withVectors = false, fast = false, bare = false, tokenize }: KeywordReading = {},
): Promise<Ranked[]> {
  const clauses = fullTextClauses(text.text, text.analysed);
  if (clauses.length === 0) return [];
  const terms = text.analysed ? text.analysed.count : await countTerms(table, matchableText(text.text), tokenize);
  if (terms === 0) return [];
  // Several clauses' lists may each be read deeper (clause-search.ts): they read no text
  // (searchTable reads the kept hits' text) and their hits get their vectors once ranked.
  const one = clauses.length === 1;
  const listed = { bare: bare || !one, vectors: withVectors && one };
  const columns = [...(listed.bare ? LIST_COLUMNS : COLUMNS), "_score", ...(listed.vectors ? ["vector"] : [])];
  const list = async (clause: FullTextQuery, n: number) => {
    let q = table.query().fullTextSearch(clause).select(columns).limit(n);
    if (listed.bare) q = q.withRowId();
    if (fast) q = q.fastSearch();
    if (filter) q = q.where(filter);
    const rows = await q.toArrow();
    const scores = numbersOf(rows, "_score");
    return hitsOf(rows, (i) => Number(scores[i]), listed.vectors);
  };
  const ranked = await searchClauses(clauses, limit, list);
  const found = withVectors && !listed.vectors ? await withStoredVectors(table, ranked) : ranked;
  // Equal scores in chunk-id order, so every list of the same matches agrees (keyword mode, hybrid at α 0).
  return found
    .map((h) => ({ ...h, score: saturate(h.score / terms) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The keyword scores of the chunks `ids`, which a keyword list `depth` rows deep (filtered
 * by `filter`) left out; a chunk without a query term scores 0 (absent from the map).
 * Looked up by a search narrowed to them. LanceDB scores a row outside the full-text index
 * by the statistics of the rows a search is narrowed to, so where the table may hold such
 * rows (`tail`), a word found mostly in new rows weighed far more in a look-up of one of
 * them than in the list (test/hybrid-tail.test.ts). Then the look-up is made again of the
 * indexed rows alone (exact), and the list itself is read deeper for the rest that match,
 * DEEPER times each round up to DEEPEST_ROWS, until it holds them; one still missing at
 * that depth gets the list's last score, an upper bound of its own. With `fast`, the
 * lists leave the tail out and the look-up is exact.
 */
export async function leftOutScores(
  table: Table,
  text: KeywordText,
  ids: string[],
  list: { filter: string | null; depth: number; tail: boolean },
  reading: KeywordReading,
): Promise<Map<string, number>> {
  const lookUp = async (fast: boolean) => {
    const found = await keywordHits(table, text, ids.length, inList("id", ids), { ...reading, fast });
    return new Map(found.map((h) => [h.id, h.score]));
  };
  if (!list.tail || reading.fast) return lookUp(reading.fast === true);
  const [all, indexed] = await allDone([lookUp(false), lookUp(true)]);
  const inTail = [...all.keys()].filter((id) => !indexed.has(id));
  if (inTail.length === 0) return indexed;
  const deeper = await deeperScores(table, text, inTail, list, reading);
  return new Map([...indexed, ...deeper]);
}

/** The scores of `ids` (each with a query term) in the keyword list read deeper than `depth` (leftOutScores). */
async function deeperScores(
  table: Table,
  text: KeywordText,
  ids: string[],
  list: { filter: string | null; depth: number },
  reading: KeywordReading,
): Promise<Map<string, number>> {
  const wanted = new Set(ids);
  const deepest = Math.max(list.depth, DEEPEST_ROWS);
  for (let limit = Math.min(list.depth * DEEPER, deepest); ; limit = Math.min(limit * DEEPER, deepest)) {
    const read = await keywordHits(table, text, limit, list.filter, reading);
    const scores = new Map(read.filter((h) => wanted.has(h.id)).map((h) => [h.id, h.score]));
    if (scores.size === wanted.size || read.length < limit) return scores;
    if (limit >= deepest) {
      for (const id of ids) if (!scores.has(id)) scores.set(id, read.at(-1)!.score);
      return scores;
    }
  }
}

/** Bare hits (with their row ids) with their stored vectors, read by row id. */
async function withStoredVectors(table: Table, hits: Ranked[]): Promise<Ranked[]> {
  const stored = await vectorsByRowId(
    table,
    hits.map((h) => h.rowId!),
  );
  return hits.map((h) => ({ ...h, stored: stored.get(h.rowId!) }));
}

/** Distinct terms of the query as the full-text index sees them; word count if it has no index yet. */
async function countTerms(table: Table, cleaned: string, tokenize?: Tokenize): Promise<number> {
  try {
    if (tokenize) return new Set(await tokenize(cleaned)).size;
    const tokens = await table.tokenize(cleaned, { column: "text" });
    return new Set(tokens.map((t) => t.text)).size;
  } catch {
    return new Set(cleaned.toLowerCase().split(/\s+/)).size;
  }
}
