/**
 * How a table's ANN index is probed (ann.ts says which index it has): how many IVF
 * partitions, how many candidates are re-ranked on their stored vectors, and, for the
 * built-in embedder's vectors, how many lexical candidates join the answer.
 */
import { partitionsForRows, RETRAIN_GROWTH } from "./ann";

/** Probe settings when the table has an ANN index; null means exact (flat) search. */
export interface AnnProbes {
  minimum: number;
  maximum: number;
  /**
   * Candidates re-ranked on their stored vectors, as a multiple of the limit; 1 for an
   * index whose distances are exact already (IVF_FLAT), where a re-read only costs time.
   */
  refine: number;
  /** Candidates re-ranked at most, whatever the limit (vector-hits.ts, refineFor); absent, MAX_REFINED_ROWS. */
  refinedRows?: number;
  /** HNSW only: the search's candidate list length. */
  ef?: number;
  /**
   * Built-in vectors on IVF_PQ: the full-text index's best rows for the query text that
   * join the index's answer, scored exactly (lexical-candidates.ts); absent, none.
   */
  lexical?: number;
}

const WIDE_FROM = 50_000;

/**
 * IVF_FLAT's probe share from WIDE_FROM rows: on the first 100,000 rows of the 1M-row growth
 * corpus 60% found recall@10 0.918–0.936 and 70% 0.948–0.954, at the same latency
 * (bench/flat-share.ts; docs/notes/2026-12-06-search-and-ann-indexes.md has the runs).
 */
const WIDE_SHARE = 0.7;

/**
 * Where a table's vectors come from: the built-in embedder's hashed vectors, whose
 * neighbours scatter over many partitions, or a model embedder's (anything else), whose
 * neighbours cluster. The searcher says which (retrieval/searcher.ts); unsaid, builtin.
 */
export type VectorKind = "builtin" | "model";

/**
 * IVF_PQ probe share for a model embedder's vectors. At 1M dense model-like rows
 * (bench/dense.ts, 1,000 partitions, refine 100 ×) recall@10 was the same 1.000 from 2%
 * to 30% (bench/ann-sizes.ts --dir SWEEP=1), so MODEL_PQ_SHARE up to 1,000 partitions (modelShare); through the binary (bench/query-http.ts
 * 1000000 dense --dir) p50 51.6 ms at 15% and 30.5 ms at 5%, p95 311 and 66 ms, recall
 * 1.000 both (load 8–9; 21.6 ms at 5% at load 4 in an earlier run). Not the minimum
 * of 20: on 20,000 dense rows of 20 topics under the same 1,000 partitions 20 probes
 * found 0.875 and 50 found 1.000 (test/vectors.test.ts). On a quiet machine (load 1–2):
 * p50 28.0 ms right after the build, 19.8 ms (p95 28.4) on the kept table's next run,
 * recall 0.998 (1.000 with ties), RSS 387 MB.
 */
const MODEL_PQ_SHARE = 0.05;

/**
 * A model's IVF_PQ index past MODEL_PQ_WIDE_FROM partitions probes a share growing with them
 * (modelShare, at most MODEL_PQ_SHARE_MAX), and from MODEL_PQ_FEWER_FROM partitions
 * re-ranks MODEL_PQ_REFINE_LARGE × limit candidates instead of PQ_REFINE ×. At 10M dense
 * rows (bench/ten-million-probes.ts on the bench/ten-million.ts table: an index of 2,516
 * partitions, 30 queries, in process, p50 with the page cache emptied first, then warm):
 * re-ranking 100 ×, recall@10 was 0.847 probing 5% (126), 0.910 at 10% and 0.967 at 15%,
 * 42.6, 42.3 and 48.8 ms cold (27.0, 33.7 and 40.8 warm): each partition holds more
 * neighbourhoods, and neighbours spread over more of them, than at 1M, where 5% of 1,000
 * partitions found 1.000. The re-rank reads each candidate's stored vector, a random read
 * of a table far larger than the page cache (15 GB of vectors there): probing 12.6% (317),
 * 100 × found 0.957 in 54.5 ms cold, 60 × 0.940 in 41.3 ms, 40 × 0.893; through the
 * executable, 100 × answered in 82 ms p50. From 1,000 to 2,000 partitions (1M–4M rows)
 * neither was measured.
 */
const MODEL_PQ_WIDE_FROM = 1000;
const MODEL_PQ_SHARE_MAX = 0.15;
const MODEL_PQ_FEWER_FROM = 2000;
const MODEL_PQ_REFINE_LARGE = 60;

/** The share of its partitions a model's IVF_PQ index probes: MODEL_PQ_SHARE, growing with them past MODEL_PQ_WIDE_FROM. */
export function modelShare(partitions: number): number {
  return Math.min(MODEL_PQ_SHARE_MAX, MODEL_PQ_SHARE * Math.max(1, partitions / MODEL_PQ_WIDE_FROM));
}

/** A model's IVF_PQ re-rank factor: PQ_REFINE, MODEL_PQ_REFINE_LARGE from MODEL_PQ_FEWER_FROM partitions. */
function modelRefine(partitions: number): number {
  return partitions >= MODEL_PQ_FEWER_FROM ? MODEL_PQ_REFINE_LARGE : PQ_REFINE;
}

/**
 * Probes for IVF_FLAT: half the partitions, WIDE_SHARE from WIDE_FROM rows (recall@10 on
 * built-in vectors of topical text at 100,000 rows: 0.73 with 15%, 0.85 with 25%,
 * 0.94–0.98 with 50% depending on the queries, 0.99 with 65%; at 20,000 rows 0.95
 * with 20%). For IVF_PQ (at least 20 probes) on clustered 384-d data recall@10
 * at 1M rows was 0.87 with 5%, 0.93 with 10% and 0.96 with 15% (re-ranking 10 × limit);
 * on the built-in embedder's vectors 0.60 with 15% and 0.69 with 40%, re-ranking 50 ×
 * 0.66 and 0.79 (the partitions miss neighbours there, bench/ann-sizes.ts), so a built-in
 * table's search joins lexical candidates and probes BUILTIN_PQ_SHARE; a model's
 * vectors MODEL_PQ_SHARE. A filtered search may probe up to all of them, the fewer the
 * more rows it matches (probe-ceiling.ts).
 */
export function probesForRows(
  rows: number,
  indexType: string,
  kind: VectorKind = "builtin",
  tableRows = rows,
): AnnProbes {
  if (/HNSW/i.test(indexType)) return smallTableProbes();
  const partitions = partitionsForRows(rows);
  const flat = /FLAT/i.test(indexType);
  const stale = flat ? staleFlatShare(rows, tableRows) : 1;
  const share = flat
    ? (rows >= WIDE_FROM ? WIDE_SHARE : 0.5) * stale
    : kind === "model"
      ? modelShare(partitions)
      : BUILTIN_PQ_SHARE;
  const minimum = Math.min(partitions, Math.max(20, Math.ceil(partitions * share)));
  const refine = flat ? 1 : kind === "model" ? modelRefine(partitions) : BUILTIN_PQ_REFINE;
  const probes: AnnProbes = { minimum, maximum: partitions, refine };
  // Built-in vectors join lexical candidates where the probes alone miss: on IVF_PQ, and on an
  // outgrown IVF_FLAT probing its scaled-down share until the retrain lands.
  const missing = !flat || stale < 1;
  if (kind !== "builtin" || !missing) return probes;
  return { ...probes, lexical: LEXICAL_CANDIDATES, ...(flat ? {} : { refinedRows: BUILTIN_REFINED_ROWS }) };
}

/**
 * The part of its probe share an IVF_FLAT index trained on `rows` keeps on a table of
 * `tableRows`: an IVF_FLAT search reads every vector of the partitions it probes, and
 * rows added since training fill those partitions, so past RETRAIN_GROWTH × rows it
 * probes fewer, reading at most what it read when its retrain fell due. The retrain
 * (table-upkeep.ts) restores the share; until then recall dips instead of latency growing
 * with the table. In bench/ann-growth.ts (100,000 → 1M, built-in vectors, load 10–12)
 * the IVF_FLAT of 100,000 rows probed at 60% answered in 207 ms p50 at 400,000 rows,
 * about 1 s at 700,000 and 5.7 s at 1M while its retrain ran. With this bound and the
 * shorter k-means (KMEANS) it served until its retrain landed near 1M rows at 211 ms
 * p50 over all its queries (load 4–7), recall@10 0.835 at 400,000 and 0.885 at 700,000.
 */
function staleFlatShare(rows: number, tableRows: number): number {
  const budget = RETRAIN_GROWTH * Math.max(1, rows);
  return tableRows > budget ? budget / tableRows : 1;
}

/**
 * The full-text index's best rows a search of built-in vectors on IVF_PQ (or on an outgrown
 * IVF_FLAT) joins to the index's answer (lexical-candidates.ts). At 1M built-in rows
 * (bench/lexical.ts, in process, load average 6–10 from other work) recall@10 probing 15% went from 0.734 alone to 0.922,
 * 0.960 and 0.972 joining the best 100, 300 and 1,000 (probing 5%: 0.552 → 0.858, 0.924,
 * 0.940); the full-text index's 1,000 alone found 0.904. On SciFact's abstracts (bench/
 * lexical-scifact.ts, 25,000 chunks, where partitions are probed at 2–5%) the index alone
 * found 0.50–0.56 and with 300 candidates 0.86: real text shares words less than the
 * generated corpus, so the candidates help less there, but always add. 300 left a table
 * grown to 1M rows at 0.88–0.92, at the edge of the built-in vectors' 0.9; 500 found 0.940
 * against 0.918 on the kept 1M table through the binary, at the same p50 (docs/
 * notes/2026-12-06-search-and-ann-indexes.md, "Lexical candidates").
 */
export const LEXICAL_CANDIDATES = 500;

/**
 * IVF_PQ probe share for built-in vectors, whose search joins LEXICAL_CANDIDATES: through
 * the binary at 1M rows (bench/query-http.ts 1000000 topical --dir) 5% found recall@10 0.922
 * at p50 57 ms, p95 79 ms (load 4), 15% 0.960 at p50 93 ms, p95 205 ms (load 5–9); 15%
 * without the candidates had found 0.734 at p50 57 ms.
 */
const BUILTIN_PQ_SHARE = 0.05;

/**
 * IVF_PQ's distances come from codes: PQ_REFINE × limit candidates are re-ranked on
 * their stored vectors. At 1M rows of dense model-like vectors (bench/dense.ts, 1000
 * partitions, 24 sub-vectors) recall@10 was 0.544 with 10, 0.836 with 30, 0.944 with
 * 50 and 1.000 with 100, the same at every probe share from 2% to 30%: the codes, not
 * the partitions, lost the neighbours. p50 with 5% probes went 17.9 → 33 ms from 10 to
 * 100 on the 2-core machine at load average 10–11 (bench/ann-sizes.ts --dir, SWEEP=1).
 */
const PQ_REFINE = 100;

/**
 * IVF_PQ's re-rank factor for built-in vectors, whose search joins LEXICAL_CANDIDATES
 * scored exactly: the re-rank reads PQ_REFINE × limit stored vectors, most of the ANN
 * search's time, for neighbours the candidates mostly bring anyway. At 1M rows in
 * process (bench/lexical.ts 1000000 --dir, TRUTH=200, probing 5%, load 4–8 from other
 * work) recall@10 with 300 candidates was 0.929 re-ranking 100 ×, 0.924 at 30 ×, 0.913
 * at 10 × (alone: 0.601, 0.578, 0.538); the ANN search took 20–25 ms at 100 ×, 12–16 at
 * 30 × (bench/lexical-stages.ts). Through the binary (bench/query-http.ts 1000000 topical
 * --dir, old and new code alternately, four rounds, load average 7.5–12 from other work),
 * with the candidates' vectors read in their full-text search: p50 44–53 ms before,
 * 24.2–31.1 ms after (24.2 in two rounds at load 9); 18–26 → 32–41 requests/s at 32 clients.
 */
const BUILTIN_PQ_REFINE = 30;

/**
 * Candidates a built-in IVF_PQ search re-ranks at most: those of a top-10 search, also for
 * hybrid's and reranking's lists of 50 or more rows, which re-ranking 30 × read 1,500
 * stored vectors (at 1M rows in process, 50 rows: 38.6 ms re-ranking 1,500, 16.7 ms
 * re-ranking 300; bench/lexical-stages.ts, load 4–6). Their lexical candidates bring the
 * rows sharing the query's words, the ones a hybrid blend ranks first: over 100 queries
 * the hybrid top 10 were the same as re-ranking 30 × or 100 × uncapped, and hybrid search
 * took 43.9 ms p50 against 70.4 uncapped in the same run (AGREE=100, load 6–7).
 */
const BUILTIN_REFINED_ROWS = 300;

/** An HNSW search (ann.ts, HNSW_UNTIL): its candidate list, and the re-rank of its 8-bit codes. */
const HNSW_EF = 80;
const HNSW_REFINE = 2;

function smallTableProbes(): AnnProbes {
  return { minimum: 1, maximum: 1, refine: HNSW_REFINE, ef: HNSW_EF };
}
