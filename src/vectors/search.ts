/**
 * Search over one table. Every score is in [0, 1], higher is better:
 *
 * - vector: cosine similarity, 1 − cosine distance, clamped to [0, 1]. Vectors are
 *   L2-normalised, so this is the dot product; opposite directions score 0. Through
 *   the ANN index, or exact when a filter matches few rows (vector-hits.ts); on a
 *   built-in embedder's IVF_PQ table the index's answer is joined with the full-text
 *   index's best matches, each scored by the same cosine (lexical-candidates.ts).
 * - keyword: BM25 from LanceDB's full-text index (an analysed query's clauses summed,
 *   keyword-hits.ts, clause-search.ts), mapped by per-term saturation:
 *   with n the number of distinct query terms after the index's tokenizer (stop
 *   words dropped, stems merged) and b = bm25 / n, score = b / (b + 4). The map is
 *   monotone and fixed, so a score means the same thing in every query and every
 *   request (dividing by the best hit would call any weak top match 1.0 and make
 *   `minScore` useless). Dividing by n stops long queries from piling up higher
 *   raw sums. k = 4 is about one rare term matched once in a medium collection
 *   (idf ≈ 4–7), which scores ≈ 0.5–0.65; matching every query term well scores
 *   higher, matching a fraction of them lower.
 * - hybrid: both of the above fetch max(topK × 4, 50) candidates (topK or `listsFor`); a candidate
 *   found by only one of them gets its exact score in the other (its cosine from
 *   its stored vector; its BM25 from a keyword search narrowed to it, 0 when it
 *   shares no term), and the two scores are blended α · vector + (1 − α) · keyword
 *   (fusion.ts), so a chunk's score never depends on which lists it was in.
 *   With `exact: false` the lists are max(topK, 50) deep, a keyword hit's cosine
 *   comes from the vector it brings, and a missing keyword score counts 0.
 *
 * `minScore` applies after scoring, then the list is cut to topK.
 */
import type { Table } from "@lancedb/lancedb";
import { fuse } from "./fusion";
import type { AnnProbes } from "./ann-probes";
import { EXACT_FILTER, type ExactFilterLimits } from "./exact-filter";
import { cosine, type Ranked, type StoredHit } from "./hits";
import { withText } from "./hit-text";
import { keywordHits } from "./keyword-hits";
import { narrowedKeywordHits } from "./tail-scores";
import { type VectorHitOptions, vectorHits } from "./vector-hits";
import { sourceChunks } from "./source-chunks";
import { inList } from "./tables";
import { allDone } from "../tools/all-done";

export type { StoredHit } from "./hits";
export type { KeywordReading, SearchMode, TableSearch, Tokenize } from "./table-search";
import type { TableSearch, Tokenize } from "./table-search";

export type { AnnProbes } from "./ann-probes";

/** How a search may run, beside what it asks for. */
export interface SearchOptions {
  /** Which filters are narrow enough to search exactly (exact-filter.ts; default EXACT_FILTER). */
  exactFilter?: ExactFilterLimits;
  /** Told when a search's lexical candidates failed and its index answered alone. */
  onLexicalError?: (err: unknown) => void;
  /**
   * The keyword list leaves out the rows the full-text index does not hold yet, rather than
   * tokenise each of them again: set while that tail is long (table-upkeep.ts,
   * indexedTextOnly). The vector search still reads those rows.
   */
  indexedTextOnly?: boolean;
  /** Tokenises query text as the tables' full-text indexes do, without asking the table (tokenizer-twin.ts). */
  tokenize?: Tokenize;
  /**
   * The table may hold rows its full-text index does not (written since upkeep last caught
   * up): a look-up narrowed to a few chunks or sources scores such rows from the keyword
   * list itself (tail-scores.ts).
   */
  textTail?: boolean;
}

/** Searches one table in the requested mode; results best first. */
export async function searchTable(
  table: Table,
  req: TableSearch,
  ann: AnnProbes | null,
  opts: SearchOptions = {},
): Promise<StoredHit[]> {
  if (!Number.isInteger(req.topK) || req.topK < 1)
    throw new RangeError(`topK must be a positive integer, got ${req.topK}`);
  if (req.mode !== "keyword" && !req.vector) throw new Error(`a query vector is required for ${req.mode} search`);
  if (req.documentIds && req.documentIds.length === 0) return [];
  if (req.chunkIds && req.mode === "hybrid") throw new RangeError("chunkIds are for vector and keyword searches");
  const searched = allOf([req.documentIds ? inList("document_id", req.documentIds) : null, req.where ?? null]);
  const filter = req.chunkIds ? allOf([inList("id", req.chunkIds), searched]) : searched;
  let hits: Ranked[];
  const hitOpts = {
    exact: opts.exactFilter ?? EXACT_FILTER,
    text: req.text,
    analysed: req.analysed,
    onLexicalError: opts.onLexicalError,
    labels: req.labels === true,
  };
  const fast = opts.indexedTextOnly === true;
  const labels = req.labels === true;
  const textTail = opts.textTail === true;
  const tokenize = opts.tokenize;
  const keyword = { text: req.text, analysed: req.analysed };
  const whole =
    req.readWhole && req.documentIds && req.mode !== "keyword"
      ? await sourceChunks(table, req, filter!, keyword, { fast, tokenize, labels })
      : null;
  if (whole) hits = whole;
  else if (req.mode === "vector") hits = await vectorHits(table, req.vector!, req.topK, filter, ann, hitOpts);
  else if (req.mode === "keyword" && req.chunkIds) {
    const look = { narrowing: filter!, limit: req.topK, filter: searched, depth: LIST_MIN, tail: textTail };
    hits = await narrowedKeywordHits(table, keyword, look, { fast, tokenize, labels });
  } else if (req.mode === "keyword")
    hits = await keywordHits(table, keyword, req.topK, filter, { fast, tokenize, labels, tail: textTail });
  else hits = await hybridHits(table, req, filter, ann, { ...hitOpts, fast, tokenize, textTail });
  // Hybrid's lists read no text (hits.ts, LIST_COLUMNS): a hit kept without it is read now.
  return finishHits(await withText(table, keptHits(hits, req)), req);
}

/** The fewest rows a hybrid search's lists read (and the depth a look-up's list is first taken to have). */
const LIST_MIN = 50;

/** SQL keeping the rows every one of `parts` keeps (null: no filter). */
function allOf(parts: (string | null)[]): string | null {
  const present = parts.filter((p) => p !== null);
  return present.length ? present.map((p) => `(${p})`).join(" AND ") : null;
}

/** A search's answer from its ranked hits: those reaching `minScore`, cut to topK. */
export function finishHits(hits: Ranked[], req: Pick<TableSearch, "topK" | "minScore">): StoredHit[] {
  return keptHits(hits, req).map(({ id: _id, stored: _stored, rowId: _rowId, ...hit }) => hit);
}

/** The ranked hits reaching `minScore`, cut to topK. */
function keptHits(hits: Ranked[], req: Pick<TableSearch, "topK" | "minScore">): Ranked[] {
  const min = req.minScore ?? 0;
  return hits.filter((h) => h.score >= min).slice(0, req.topK);
}

async function hybridHits(
  table: Table,
  req: TableSearch,
  filter: string | null,
  ann: AnnProbes | null,
  {
    fast,
    tokenize,
    textTail,
    ...hitOpts
  }: VectorHitOptions & { fast: boolean; textTail: boolean; tokenize?: Tokenize },
): Promise<Ranked[]> {
  // Without look-ups the lists need only be as deep as the answer; with them, deeper lists find more contenders.
  const k = req.listsFor ?? req.topK;
  const n = req.exact === false ? Math.max(k, LIST_MIN) : Math.max(k * 4, LIST_MIN);
  // The lists are read bare (hits.ts, LIST_COLUMNS); the keyword hits bring their vectors: a
  // hit the vector list missed is scored without another read.
  const reading = { fast, tokenize, bare: true, tail: textTail, labels: hitOpts.labels === true };
  const [vec, key] = await allDone([
    vectorHits(table, req.vector!, n, filter, ann, { ...hitOpts, bare: true }),
    keywordHits(table, { text: req.text, analysed: req.analysed }, n, filter, { ...reading, withVectors: true }),
  ]);
  const vecScore = new Map(vec.map((h) => [h.id, h.score]));
  const keyScore = new Map(key.map((h) => [h.id, h.score]));
  const alpha = req.hybridAlpha ?? 0.5;
  // A list shorter than n holds every match, so a chunk missing from it scores exactly 0 there
  // (with `fast`, every match the full-text index holds: the rest score 0 throughout).
  const bound = { key: key.length < n ? 0 : key.at(-1)!.score, vec: vec.length < n ? 0 : vec.at(-1)!.score };
  if (req.exact === false) return lowerBounds(vec, key, { vec: vecScore, key: keyScore }, bound, req);
  const keep = contenders(vec, key, vecScore, keyScore, bound, alpha, req.topK);
  const vecOnly = vec.filter((h) => !keyScore.has(h.id) && keep.has(h.id) && bound.key > 0).map((h) => h.id);
  const keyOnly = new Set(key.filter((h) => !vecScore.has(h.id) && keep.has(h.id)).map((h) => h.id));
  // With `fast`, a row outside the full-text index scores 0 here too, whichever list found it.
  // The contenders' text is read meanwhile: the lists left it out.
  const words = { text: req.text, analysed: req.analysed };
  const look = { narrowing: inList("id", vecOnly), limit: vecOnly.length, filter, depth: n, tail: textTail };
  const [moreKey, read] = await allDone([
    vecOnly.length ? narrowedKeywordHits(table, words, look, reading) : [],
    withText(table, uniqueHits([...vec, ...key], keep)),
  ]);
  for (const h of moreKey) keyScore.set(h.id, h.score);
  const withItsText = new Map(read.map((h) => [h.id, h]));
  const qNorm = Math.hypot(...req.vector!);
  for (const h of key) if (keyOnly.has(h.id) && h.stored) vecScore.set(h.id, cosine(req.vector!, qNorm, h.stored));
  const [first, second] = alpha > 0.5 ? [vec, key] : [key, vec];
  const seen = new Set<string>();
  const candidates: (Ranked & { keyword: number; vector: number })[] = [];
  for (const h of [...first, ...second]) {
    const hit = withItsText.get(h.id); // none for a chunk deleted since the lists
    if (seen.has(h.id) || !keep.has(h.id) || !hit) continue;
    seen.add(h.id);
    candidates.push({ ...hit, stored: undefined, keyword: keyScore.get(h.id) ?? 0, vector: vecScore.get(h.id) ?? 0 });
  }
  // At α = 0 the vector half has no say: as in keyword mode, a chunk needs a query term.
  return fuse(candidates, alpha)
    .filter((h) => alpha > 0 || h.keyword > 0)
    .map(({ keyword: _k, vector: _v, ...h }) => h);
}

/**
 * Hybrid scores without per-candidate look-ups (TableSearch.exact false). A keyword
 * hit's cosine comes from the vector it brought along. A score missing from a list
 * that holds every match (shorter than asked) is exactly 0; a keyword score missing
 * from a full list is at least 0, so the blend is only a lower bound there.
 */
function lowerBounds(
  vec: Ranked[],
  key: Ranked[],
  scores: { vec: Map<string, number>; key: Map<string, number> },
  bound: { key: number; vec: number },
  req: TableSearch,
): Ranked[] {
  const alpha = req.hybridAlpha ?? 0.5;
  const qNorm = Math.hypot(...req.vector!);
  // The list that weighs more comes first, so ties keep its order (as in hybridHits).
  const [first, second] = alpha > 0.5 ? [vec, key] : [key, vec];
  const seen = new Set<string>();
  const candidates: (Ranked & { keyword: number; vector: number })[] = [];
  for (const h of [...first, ...second]) {
    if (seen.has(h.id)) continue;
    seen.add(h.id);
    const k = scores.key.get(h.id);
    const v = scores.vec.get(h.id) ?? (h.stored ? cosine(req.vector!, qNorm, h.stored) : undefined);
    const partial = (k === undefined && bound.key > 0) || (v === undefined && bound.vec > 0);
    const extra = partial ? { partial: { keyword: k, vector: v } } : {};
    candidates.push({ ...h, stored: undefined, keyword: k ?? 0, vector: v ?? 0, ...extra });
  }
  return fuse(candidates, alpha)
    .filter((h) => alpha > 0 || h.keyword > 0)
    .map(({ keyword: _k, vector: _v, ...h }) => h);
}

/** The hits of `lists` whose ids `keep` holds, each once (the first list's). */
function uniqueHits(lists: Ranked[], keep: Set<string>): Ranked[] {
  const seen = new Set<string>();
  return lists.filter((h) => keep.has(h.id) && !seen.has(h.id) && seen.add(h.id));
}

/**
 * The candidates that can still make the top `topK`. A chunk found by one list
 * scores at most `bound` in the other (the other list's last score), at least 0;
 * one whose best case is below the topK-th best worst case cannot rank, so its
 * missing score is never looked up. The rest get their exact score, so every
 * score returned is exact.
 */
function contenders(
  vec: Ranked[],
  key: Ranked[],
  vecScore: Map<string, number>,
  keyScore: Map<string, number>,
  bound: { key: number; vec: number },
  alpha: number,
  topK: number,
): Set<string> {
  const ids = [...new Set([...vec.map((h) => h.id), ...key.map((h) => h.id)])];
  const range = ids.map((id) => {
    const v = vecScore.get(id);
    const k = keyScore.get(id);
    const low = alpha * (v ?? 0) + (1 - alpha) * (k ?? 0);
    const high = alpha * (v ?? bound.vec) + (1 - alpha) * (k ?? bound.key);
    return { id, low, high };
  });
  const lows = range.map((r) => r.low).sort((a, b) => b - a);
  const threshold = lows[Math.min(topK, lows.length) - 1] ?? 0;
  return new Set(range.filter((r) => r.high >= threshold).map((r) => r.id));
}
