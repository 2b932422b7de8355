/**
 * Which ANN index a table gets, when it is retrained, and how it is probed.
 *
 * Exact search reads every vector: 58 ms p50 at 20,000 rows × 384 dimensions on the
 * 2-core bench machine, against 3–12 ms from an HNSW or IVF_FLAT index at recall@10 ≥ 0.95
 * (bench/ann-sizes.ts), so a table gets its index from ANN_THRESHOLD rows on. An IVF index is trained on
 * the rows of its day; rows added later are folded into its partitions by optimize(),
 * which keeps recall but makes each partition, and so each query, slower. Once the
 * table has grown RETRAIN_GROWTH times past the rows the index was trained on, a new
 * index is trained beside the serving one and the old one is dropped after the new
 * one has committed (table-upkeep.ts), so queries never wait for a build.
 *
 * The rows an index was trained on are kept in its name (`vector_<kind>_<rows>`), so
 * the schedule survives restarts.
 */
import { Index, type IndexConfig } from "@lancedb/lancedb";

/** Rows from which a table gets an ANN index. */
export const ANN_THRESHOLD = 10_000;
/** A table this many times larger than its index's training set gets a new index. */
export const RETRAIN_GROWTH = 2;

/**
 * Below this many rows the ANN index is IVF_FLAT (exact vectors in partitions):
 * on the built-in embedder's hashed vectors PQ codes lose too much (recall@10 at
 * 100k was 0.86 even probing every partition), while IVF_FLAT kept 0.95 and more.
 * Above it, IVF_PQ keeps the index in memory.
 */
export const FLAT_UNTIL = 300_000;

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

/** The serving vector index of a table, as read from its index list. */
export interface AnnIndexInfo {
  name: string;
  indexType: string;
  /** Rows the index was trained on (its name says; an index built before names did: the rows it covers). */
  trainedRows: number;
}

/** IVF partitions ≈ √rows, the usual balance between picking partitions and scanning them. */
export function partitionsForRows(rows: number): number {
  return Math.max(1, Math.min(4096, Math.round(Math.sqrt(rows))));
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
 * to 30% (bench/ann-sizes.ts --dir SWEEP=1); through the binary (bench/query-http.ts
 * 1000000 dense --dir) p50 51.6 ms at 15% and 30.5 ms at 5%, p95 311 and 66 ms, recall
 * 1.000 both (load 8–9; 21.6 ms at 5% at load 4 in an earlier run). Not the minimum
 * of 20: on 20,000 dense rows of 20 topics under the same 1,000 partitions 20 probes
 * found 0.875 and 50 found 1.000 (test/vectors.test.ts). On a quiet machine (load 1–2):
 * p50 28.0 ms right after the build, 19.8 ms (p95 28.4) on the kept table's next run,
 * recall 0.998 (1.000 with ties), RSS 387 MB.
 */
const MODEL_PQ_SHARE = 0.05;

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
      ? MODEL_PQ_SHARE
      : BUILTIN_PQ_SHARE;
  const minimum = Math.min(partitions, Math.max(20, Math.ceil(partitions * share)));
  const refine = flat ? 1 : kind === "model" ? PQ_REFINE : BUILTIN_PQ_REFINE;
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

/**
 * The k-means that places IVF partitions, on a sample of KMEANS.sampleRate rows a partition
 * for KMEANS.maxIterations rounds (LanceDB's defaults: 256 and 50). It was most of a build:
 * at 100,000 built-in rows IVF_FLAT trained in 24.0 s by default, 8.7 s with 10 rounds and
 * 6.6 s with 64 rows a partition as well, recall@10 probing 60% 0.964, 0.982 and 0.976
 * (bench/ann-sizes.ts, load 7–9). IVF_PQ at 1M dense rows: 345 s against 500–870 s with
 * the defaults, recall@10 through the binary 0.998 against 1.000 (bench/query-http.ts --dir,
 * load 6–9). A shorter build is a shorter time for an outgrown index.
 */
const KMEANS = { sampleRate: 64, maxIterations: 10 };

/**
 * HNSW for small tables (smallTableIndex), IVF_FLAT below FLAT_UNTIL rows, else IVF_PQ; trained for cosine (the metric queries use; a mismatch would bypass the
 * index). Sub-vectors of 16 dimensions from 256 dimensions up (SIMD-friendly; at
 * 100k×384 they trained 2.6× faster than 8-dim ones, recall@10 after refine 0.99 vs
 * 1.0), 8 below that so small vectors keep enough codes; a dimension not divisible
 * by 8 gets IVF_FLAT, since PQ would fall back to a single sub-vector.
 */
export function annIndexFor(rows: number, dim: number, numPartitions = partitionsForRows(rows)): AnnIndexConfig {
  const small = smallTableIndex(rows);
  if (small) return small;
  if (rows < FLAT_UNTIL || dim % 8 !== 0)
    return {
      name: `vector_ivfflat_${rows}`,
      indexType: "IVF_FLAT",
      config: Index.ivfFlat({ numPartitions, distanceType: "cosine", ...KMEANS }),
    };
  const numSubVectors = dim >= 256 && dim % 16 === 0 ? dim / 16 : dim / 8;
  return {
    name: `vector_ivfpq_${rows}`,
    indexType: "IVF_PQ",
    config: Index.ivfPq({ numPartitions, numSubVectors, distanceType: "cosine", ...KMEANS }),
  };
}

/** An index to build: its name (`vector_<kind>_<rows>`), kind and LanceDB configuration. */
export interface AnnIndexConfig {
  name: string;
  indexType: string;
  config: Index;
}

/**
 * Small tables (below HNSW_UNTIL rows) get one HNSW graph over 8-bit codes
 * (IVF_HNSW_SQ with a single partition); the search walks it with HNSW_EF candidates
 * and re-ranks HNSW_REFINE × limit of them on their stored vectors. At 20,000 built-in
 * rows (bench/ann-sizes.ts, 16 in flight): recall@10 0.954 at 513 q/s with ef 40 and
 * 0.968 at 472 q/s with ef 80, against IVF_FLAT probing 50% at 0.960 and 274 q/s; the
 * graph built in 12–37 s against 5–7 s. Without re-ranking the codes capped recall
 * at 0.93–0.94. The graph costs upkeep: the build grows faster than linearly (40,000
 * rows took 144 s and 100,000 rows 18.5 min on the loaded 2-core bench machine), and
 * rows added later go into delta graphs at about 1.4 ms of CPU a row (IVF_FLAT: 0.2),
 * which a table growing from 40,000 to 100,000 rows paid for minutes before its
 * retrain could start. Hence the bound: from 30,000 rows, IVF.
 */
export const HNSW_UNTIL = 30_000;
const HNSW_EF = 80;
const HNSW_REFINE = 2;

/** The index of a table below HNSW_UNTIL rows; null from there on (annIndexFor decides). */
export function smallTableIndex(rows: number): AnnIndexConfig | null {
  if (rows >= HNSW_UNTIL) return null;
  return {
    name: `vector_hnswsq_${rows}`,
    indexType: "IVF_HNSW_SQ",
    config: Index.hnswSq({ numPartitions: 1, distanceType: "cosine" }),
  };
}

function smallTableProbes(): AnnProbes {
  return { minimum: 1, maximum: 1, refine: HNSW_REFINE, ef: HNSW_EF };
}

const NAMED = /^vector_[a-z]+_(\d+)$/;

/** The vector indexes of a table, oldest training set first; the first one is the one searches use. */
export function vectorIndexes(indices: IndexConfig[]): AnnIndexInfo[] {
  return indices
    .filter((i) => i.columns.includes("vector"))
    .map((i) => {
      const named = NAMED.exec(i.name);
      const trainedRows = named ? Number(named[1]) : (i.numIndexedRows ?? 0);
      return { name: i.name, indexType: i.indexType, trainedRows };
    });
}

/**
 * Whether a table of `rows` rows needs a first index, or a new one trained on its present
 * size: once it grew RETRAIN_GROWTH times past the serving index's training set, or grew
 * past the size its kind serves (`wanted`, annIndexFor's kind for `rows`): an IVF_FLAT
 * of 299,999 rows would otherwise read every vector of WIDE_SHARE of its partitions until
 * 600,000, where IVF_PQ reads codes.
 */
export function needsIndex(
  serving: AnnIndexInfo | undefined,
  rows: number,
  threshold: number,
  wanted?: string,
): boolean {
  if (rows < threshold) return false;
  if (!serving) return true;
  const outgrown = wanted !== undefined && rows > serving.trainedRows && kindOf(wanted) !== kindOf(serving.indexType);
  return outgrown || rows >= RETRAIN_GROWTH * Math.max(1, serving.trainedRows);
}

/** An index type as LanceDB lists it (`IvfPq`) or as annIndexFor names it (`IVF_PQ`), alike. */
const kindOf = (indexType: string) => indexType.replace(/_/g, "").toLowerCase();
