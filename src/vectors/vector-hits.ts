/**
 * The vector half of a search (vector mode, and hybrid's vector list): the nearest
 * rows to the query by cosine, through the ANN index (on built-in vectors joined with
 * the full-text index's best matches: lexical-candidates.ts), or exactly when a filter
 * matches few rows (exact-filter.ts).
 */
import type { AnalysedQuery } from "./full-text";
import type { Table, VectorQuery } from "@lancedb/lancedb";
import type { AnnProbes } from "./ann-probes";
import { EXACT_FILTER, type ExactFilterLimits, type FilteredPlan, planFilteredSearch } from "./exact-filter";
import type { Table as ArrowTable } from "apache-arrow";
import { clamp01, type HitRead, hitColumns, hitsOf, numbersOf, type Ranked } from "./hits";
import { lexicalCandidates, unionByScore } from "./lexical-candidates";
import { allDone } from "../tools/all-done";

/** How vectorHits may run, beside what it asks for. */
export interface VectorHitOptions {
  /** Which filters are narrow enough to search exactly (exact-filter.ts). */
  exact?: ExactFilterLimits;
  /** The query's text (and its analysis, on a table with analysed text), for an index that joins lexical candidates. */
  text?: string;
  analysed?: AnalysedQuery;
  /** Told when the lexical candidates failed and the index answered alone (recall drops: say so). */
  onLexicalError?: (err: unknown) => void;
  /** Hits without their text, with their row ids (hits.ts, LIST_COLUMNS): the caller reads the text of those it keeps. */
  bare?: boolean;
  /** Hits with their rows' metadata copies (StoredHit.labels). */
  labels?: boolean;
}

/**
 * The `limit` nearest rows matching `filter`, best first, scored by cosine similarity.
 * With the query's `text`, an index that asks for lexical candidates (ann-probes.ts) has them
 * joined to its answer (lexical-candidates.ts).
 */
export async function vectorHits(
  table: Table,
  vector: Float32Array,
  limit: number,
  filter: string | null,
  ann: AnnProbes | null,
  opts: VectorHitOptions = {},
): Promise<Ranked[]> {
  const { exact = EXACT_FILTER, text } = opts;
  const read = { bare: opts.bare === true, labels: opts.labels === true };
  // A counted filter picks its path, and on the index path probes as far as its share of the rows asks.
  const plan = filter && ann ? await planFilteredSearch(table, filter, ann, exact) : null;
  // Few matches: read just their vectors, exactly (recall 1.0), instead of probing every partition.
  if (plan?.path === "exact")
    return toHits(await vectorQuery(table, vector, limit, filter, ann, "exact", read).toArrow());
  if (!ann?.lexical || text === undefined) return indexHits(table, vector, limit, filter, ann, plan, read);
  const [near, lexical] = await allDone([
    indexHits(table, vector, limit, filter, ann, plan, read),
    // The candidates only add to the index's answer: should the rows move between their two
    // reads (a compaction), the search answers from the index alone.
    lexicalCandidates(
      table,
      { text, analysed: opts.analysed },
      vector,
      Math.max(ann.lexical, limit),
      limit,
      filter,
      read,
    ).catch((err: unknown) => {
      opts.onLexicalError?.(err);
      return [];
    }),
  ]);
  return unionByScore(near, lexical, limit);
}

/** The index path of vectorHits: probing as the filter's plan allows. */
async function indexHits(
  table: Table,
  vector: Float32Array,
  limit: number,
  filter: string | null,
  ann: AnnProbes | null,
  plan: FilteredPlan | null,
  read: HitRead,
): Promise<Ranked[]> {
  // A filter left uncounted (a range comparison) may probe every partition, as it always could.
  const ceiling = filter ? (plan?.ceiling ?? ann?.maximum) : undefined;
  let rows = await vectorQuery(table, vector, limit, filter, ann, ceiling, read).toArrow();
  // Matches may cluster in partitions past the ceiling: once more over all of them, so a
  // filter matching at least topK rows still returns topK.
  if (plan && ann && rows.numRows < limit && plan.matches > rows.numRows && plan.ceiling < ann.maximum)
    rows = await vectorQuery(table, vector, limit, filter, ann, ann.maximum, read).toArrow();
  return toHits(rows);
}

/** Hits scored by cosine similarity, from rows carrying LanceDB's cosine `_distance`. */
export function toHits(rows: ArrowTable): Ranked[] {
  const distances = numbersOf(rows, "_distance");
  return hitsOf(rows, (i) => clamp01(1 - Number(distances[i])));
}

/** A vector query probing up to `ceiling` partitions, or exact: bypassing the ANN index; `read` as VectorHitOptions'. */
export function vectorQuery(
  table: Table,
  vector: Float32Array,
  limit: number,
  filter: string | null,
  ann: AnnProbes | null,
  ceiling: number | "exact" | undefined,
  read: HitRead = { bare: false, labels: false },
): VectorQuery {
  let q: VectorQuery = table
    .vectorSearch(vector)
    .distanceType("cosine")
    .select([...hitColumns(read.bare, read.labels), "_distance"])
    .limit(limit);
  if (read.bare) q = q.withRowId();
  // `where` on a vector query is a prefilter, so a narrow filter still yields topK rows.
  if (filter) q = q.where(filter);
  if (ceiling === "exact") return q.bypassVectorIndex();
  if (!ann) return q;
  // Quantised distances are approximate: refine re-ranks ann.refine × limit candidates
  // exactly, and a probe ceiling above the minimum lets a filter search more partitions.
  // nprobes first (both bounds): LanceDB checks min ≤ max at each call, and its defaults are 20.
  q = q.nprobes(ann.minimum);
  if (ceiling && ceiling > ann.minimum) q = q.maximumNprobes(ceiling);
  const refine = refineFor(ann.refine, limit, ann.refinedRows);
  if (refine > 1) q = q.refineFactor(refine);
  // HNSW refuses a candidate list shorter than the candidates asked for (limit × refine).
  if (ann.ef) q = q.ef(Math.max(ann.ef, limit * refine));
  return q;
}

/**
 * Candidates re-ranked on their stored vectors at most: the top 10 of a search need about
 * 1,000 of them on IVF_PQ (ann-probes.ts, PQ_REFINE), and a search asking for more rows (the
 * hybrid and reranking paths ask for 50 or more) would otherwise read 100 × limit.
 */
export const MAX_REFINED_ROWS = 2_000;

/** The refine factor for `limit` rows: the index's own, capped at `most` candidates (never below 2 when it re-ranks). */
export function refineFor(refine: number, limit: number, most = MAX_REFINED_ROWS): number {
  if (refine <= 1) return refine;
  return Math.max(2, Math.min(refine, Math.floor(most / Math.max(1, limit))));
}
