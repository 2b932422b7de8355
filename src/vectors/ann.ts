/**
 * Which ANN index a table gets and when it is retrained (how it is probed: ann-probes.ts).
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
 * (IVF_HNSW_SQ with a single partition); the search walks it with HNSW_EF candidates (ann-probes.ts)
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

/** The index of a table below HNSW_UNTIL rows; null from there on (annIndexFor decides). */
export function smallTableIndex(rows: number): AnnIndexConfig | null {
  if (rows >= HNSW_UNTIL) return null;
  return {
    name: `vector_hnswsq_${rows}`,
    indexType: "IVF_HNSW_SQ",
    config: Index.hnswSq({ numPartitions: 1, distanceType: "cosine" }),
  };
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
 * of 299,999 rows would otherwise read every vector of WIDE_SHARE of its partitions (ann-probes.ts) until
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
