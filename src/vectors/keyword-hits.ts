/**
 * Keyword hits: BM25 from LanceDB's full-text index, mapped by per-term saturation
 * (search.ts explains the map), the query's clauses OR-ed (clause-search.ts).
 */
import type { FullTextQuery, Table } from "@lancedb/lancedb";
import { DEEPEST_ROWS, searchClauses } from "./clause-search";
import { type AnalysedQuery, fullTextClauses, matchableText } from "./full-text";
import { hitColumns, hitsOf, numbersOf, type Ranked, saturate, vectorAt, vectorsByRowId } from "./hits";
import { inList } from "./tables";
import type { KeywordReading, Tokenize } from "./table-search";

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
  { withVectors = false, fast = false, bare = false, tokenize, tail = false, labels = false }: KeywordReading = {},
): Promise<Ranked[]> {
  const clauses = fullTextClauses(text.text, text.analysed);
  if (clauses.length === 0) return [];
  const terms = text.analysed ? text.analysed.count : await countTerms(table, matchableText(text.text), tokenize);
  if (terms === 0) return [];
  // Several clauses' lists may each be read deeper (clause-search.ts): they read no text
  // (searchTable reads the kept hits' text) and their hits get their vectors once ranked.
  const one = clauses.length === 1;
  const listed = { bare: bare || !one, vectors: withVectors && one };
  const columns = [...hitColumns(listed.bare, labels), "_score", ...(listed.vectors ? ["vector"] : [])];
  const list = async (clause: FullTextQuery, n: number) => {
    let q = table.query().fullTextSearch(clause).select(columns).limit(n);
    if (listed.bare) q = q.withRowId();
    if (fast) q = q.fastSearch();
    if (filter) q = q.where(filter);
    const rows = await q.toArrow();
    const scores = numbersOf(rows, "_score");
    return hitsOf(rows, (i) => Number(scores[i]), listed.vectors);
  };
  // With `fast` the lists leave the tail out: rounds cost what they did without one.
  const ranked = await searchClauses(clauses, limit, list, DEEPEST_ROWS, tail && !fast);
  const found = withVectors && !listed.vectors ? await withStoredVectors(table, ranked) : ranked;
  // Equal scores in chunk-id order, so every list of the same matches agrees (keyword mode, hybrid at α 0).
  return found
    .map((h) => ({ ...h, score: saturate(h.score / terms) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Bare hits (with their row ids) with their stored vectors, read by row id; a row moved
 * since (compacted while the search ran) is read again by its chunk id, one written over
 * or deleted has none.
 */
async function withStoredVectors(table: Table, hits: Ranked[]): Promise<Ranked[]> {
  const stored = await vectorsByRowId(
    table,
    hits.map((h) => h.rowId!),
  );
  const moved = hits.filter((h) => !stored.has(h.rowId!)).map((h) => h.id);
  const again = moved.length ? await vectorsById(table, moved) : new Map<string, Float32Array>();
  return hits.map((h) => ({ ...h, stored: stored.get(h.rowId!) ?? again.get(h.id) }));
}

async function vectorsById(table: Table, ids: string[]): Promise<Map<string, Float32Array>> {
  const rows = await table.query().where(inList("id", ids)).select(["id", "vector"]).toArrow();
  const found = rows.getChild("id")?.toArray() as string[] | undefined;
  const vectors = rows.getChild("vector");
  if (!found || !vectors) return new Map();
  return new Map(Array.from(found, (id, i) => [id, vectorAt(vectors, i)]));
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
