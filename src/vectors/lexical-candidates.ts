/**
 * Lexical candidates of a vector search on a table of built-in vectors. The built-in
 * embedders hash a text's words, word pairs and character n-grams (embed/builtin.ts), so
 * the rows nearest a query are rows that share its words: the full-text index finds them
 * directly, where an IVF index must guess their partition from the query alone (a 3–6-word
 * query shares 1–3 words with a 20-word chunk, whose other words pick its partition;
 * docs/ARCHITECTURE.md, Search). The vector search takes the union of the ANN index's
 * answer and the full-text index's best `AnnProbes.lexical` rows, each scored by exact
 * cosine on its stored vector, so its scores stay the vector scores of search.ts.
 */
import type { FullTextQuery, Table } from "@lancedb/lancedb";
import type { Table as ArrowTable } from "apache-arrow";
import { type AnalysedQuery, fullTextClauses } from "./full-text";
import { searchClauses } from "./clause-search";
import { cosine, type HitRead, hitColumns, hitsOf, type Ranked, vectorAt, vectorsByRowId } from "./hits";

export { matchableText } from "./full-text";

/**
 * The best `limit` by exact cosine similarity to `vector` of the `count` rows that best
 * match `text` in the full-text index (BM25, terms and clauses OR-ed), among those `filter` keeps,
 * best first. None for a text without indexable terms (only stop words or symbols).
 */
export async function lexicalCandidates(
  table: Table,
  text: { text: string; analysed?: AnalysedQuery },
  vector: Float32Array,
  count: number,
  limit: number,
  filter: string | null,
  read: HitRead = { bare: false, labels: false },
): Promise<Ranked[]> {
  const clauses = fullTextClauses(text.text, text.analysed);
  if (clauses.length === 0) return [];
  const found = await bestMatches(table, clauses, count, filter);
  if (found.length === 0) return [];
  // The hit columns of the best alone: at 1M rows, 300 matches with their vectors took
  // 15 ms, with the hit columns as well 37 (bench/lexical.ts). A take by row id reads the
  // row the full-text search matched, so its labels are the ones the filter was applied to.
  const best = nearestOf(found, vector, limit);
  const rows = await table
    .takeRowIds(best.map((b) => b.rowId))
    .select(hitColumns(read.bare, read.labels))
    .withRowId()
    .toArrow();
  const score = new Map(best.map((b) => [b.rowId, b.score]));
  const ids = rowIdsOf(rows);
  return hitsOf(rows, (i) => score.get(ids[i]!) ?? 0).sort((a, b) => b.score - a.score);
}

/**
 * The full-text query of the candidates: indexed rows only. Rows the full-text index does
 * not hold yet are tokenised again by every query that reads them (table-upkeep.ts), and a
 * table whose index retrains is not caught up until the training ends, so its tail grows
 * with ingestion (docs/ARCHITECTURE.md, Search). The candidates can do without it: the
 * vector search they join reads every row outside the ANN index exactly, and a row
 * outside the full-text index is outside the ANN index too (upkeep's optimize() folds new
 * rows into both at once), but for the rows written between a pass and the snapshot a
 * new index trains on, until the next pass.
 */
export function candidateQuery(
  table: Table,
  words: FullTextQuery,
  count: number,
  filter: string | null,
  withVectors = true,
) {
  // The matches bring their vectors: one read, where reading them by row id after the
  // full-text search took a second (bench/lexical-stages.ts).
  const columns = ["_rowid", "_score", ...(withVectors ? ["vector"] : [])];
  const q = table.query().fullTextSearch(words).fastSearch().select(columns).limit(count);
  return filter ? q.where(filter) : q;
}

/** A full-text match with its stored vector. */
interface Match {
  rowId: bigint;
  vector: Float32Array;
}

/**
 * The `count` best matches of the clauses OR-ed. One clause's matches bring their vectors
 * in the same read. Several are searched one at a time (clause-search.ts says why), their
 * lists without vectors, as a list may be read deeper several times; the vectors of the
 * `count` best are read then, by row id.
 */
async function bestMatches(table: Table, clauses: FullTextQuery[], count: number, filter: string | null) {
  if (clauses.length === 1) return matchesOf(await candidateQuery(table, clauses[0]!, count, filter).toArrow());
  const best = await searchClauses(clauses, count, async (clause, limit) => {
    const found = await candidateQuery(table, clause, limit, filter, false).toArrow();
    const scores = found.getChild("_score")?.toArray() as ArrayLike<number>;
    return rowIdsOf(found).map((rowId, i) => ({ id: String(rowId), rowId, score: Number(scores[i]) }));
  });
  const stored = await vectorsByRowId(
    table,
    best.map((b) => b.rowId),
  );
  return best.flatMap((b) => {
    const vector = stored.get(b.rowId);
    return vector ? [{ rowId: b.rowId, vector }] : [];
  });
}

/** The rows of a result with `_rowid` and `vector`. */
function matchesOf(found: ArrowTable): Match[] {
  const vectors = found.getChild("vector");
  return rowIdsOf(found).map((rowId, i) => ({ rowId, vector: vectorAt(vectors!, i) }));
}

/** The `limit` of `found` nearest to `vector`, by exact cosine similarity, best first. */
function nearestOf(found: Match[], vector: Float32Array, limit: number): { rowId: bigint; score: number }[] {
  const qNorm = Math.hypot(...vector);
  const scored = found.map(({ rowId, vector: v }) => ({ rowId, score: cosine(vector, qNorm, v) }));
  return scored.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** The `_rowid` column of a result. */
function rowIdsOf(t: ArrowTable): bigint[] {
  const col = t.getChild("_rowid");
  return col ? Array.from(col.toArray() as BigUint64Array) : [];
}

/**
 * The best `limit` of the ANN answer and the lexical candidates together, by score; a
 * row in both keeps the ANN answer's score (the same cosine, computed by LanceDB).
 */
export function unionByScore(ann: Ranked[], lexical: Ranked[], limit: number): Ranked[] {
  const seen = new Set(ann.map((h) => h.id));
  const all = [...ann, ...lexical.filter((h) => !seen.has(h.id))];
  // A stable sort keeps the ANN answer's order among equal scores.
  return all.sort((a, b) => b.score - a.score).slice(0, limit);
}
