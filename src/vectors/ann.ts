/**
 * Which ANN index a table gets, when it is retrained, and how it is probed.
 *
 * Exact search reads every vector: 58 ms p50 at 20,000 rows × 384 dimensions on the
 * 2-core bench machine, against 4–12 ms from an IVF_FLAT index at recall@10 ≥ 0.95 (bench/ann-sizes.ts),
 * so a table gets its index from ANN_THRESHOLD rows on. An IVF index is trained on
 * the rows of its day; rows added later are folded into its partitions by optimize(),
 * which keeps recall but makes each partition, and so each query, slower. Once the
 * table has grown RETRAIN_GROWTH times past the rows the index was trained on, a new
 * index is trained beside the serving one and the old one is dropped after the new
 * one has committed (maintain.ts), so queries never wait for a build.
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
 * Above it, IVF_HNSW_SQ (see annIndexFor).
 */
export const FLAT_UNTIL = 300_000;

/**
 * Rows per HNSW graph of an IVF_HNSW_SQ index. Every graph is searched (the built-in
 * embedder's neighbours scatter over IVF partitions: IVF_FLAT needed 60% of them at
 * 100k rows), so partitions here only split the build, which LanceDB runs one graph
 * per thread, and keep each graph's cache entry a few hundred MB.
 */
export const ROWS_PER_GRAPH = 250_000;
/** Candidates an HNSW search keeps (`ef`): at 100k built-in rows, 64 gave recall@10 0.89, 160 gave 0.95. */
export const HNSW_EF = 160;
/** Graph build breadth: LanceDB's default is 300; 150 halves the build and stays at or above the search's ef. */
const HNSW_EF_CONSTRUCTION = 150;

/** Probe settings when the table has an IVF index; null means exact (flat) search. */
export interface AnnProbes {
  minimum: number;
  maximum: number;
  /** HNSW indexes only: candidates kept per graph search. */
  ef?: number;
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
 * Probes for IVF_FLAT: half the partitions, 60% from WIDE_FROM rows (recall@10 on
 * built-in vectors of topical text at 100,000 rows: 0.73 with 15%, 0.85 with 25%,
 * 0.94–0.98 with 50% depending on the queries, 0.99 with 65%; at 20,000 rows 0.95
 * with 20%). For IVF_PQ 15% (at least 20), where on clustered 384-d data recall@10
 * at 1M rows was 0.87 with 5%, 0.93 with 10% and 0.96 with 15%. A narrow filter may
 * probe all of them.
 */
export function probesForRows(rows: number, indexType: string): AnnProbes {
  if (/HNSW/i.test(indexType)) {
    const graphs = graphsForRows(rows);
    return { minimum: graphs, maximum: graphs, ef: HNSW_EF };
  }
  const partitions = partitionsForRows(rows);
  const share = /FLAT/i.test(indexType) ? (rows >= WIDE_FROM ? 0.6 : 0.5) : 0.15;
  return { minimum: Math.min(partitions, Math.max(20, Math.ceil(partitions * share))), maximum: partitions };
}

/** HNSW graphs of an IVF_HNSW_SQ index trained on `rows` rows. */
export function graphsForRows(rows: number): number {
  return Math.max(1, Math.ceil(rows / ROWS_PER_GRAPH));
}

/**
 * IVF_FLAT below FLAT_UNTIL rows, else IVF_HNSW_SQ; trained for cosine (the metric
 * queries use; a mismatch would bypass the index). From FLAT_UNTIL up, scanning
 * partitions costs too much (IVF_FLAT would read 60% of the vectors), and IVF_PQ,
 * which scans small codes instead, reached recall@10 0.55 on built-in vectors at 1M
 * rows: its partitions and its codes both miss neighbours. A graph walks to them
 * instead; 8-bit codes (a quarter of the vectors' size) keep it in memory, and the
 * search's refine step re-ranks its candidates exactly.
 */
export function annIndexFor(rows: number, _dim: number): { name: string; indexType: string; config: Index } {
  if (rows < FLAT_UNTIL)
    return {
      name: `vector_ivfflat_${rows}`,
      indexType: "IVF_FLAT",
      config: Index.ivfFlat({ numPartitions: partitionsForRows(rows), distanceType: "cosine" }),
    };
  return {
    name: `vector_ivfhnswsq_${rows}`,
    indexType: "IVF_HNSW_SQ",
    config: Index.hnswSq({
      numPartitions: graphsForRows(rows),
      efConstruction: HNSW_EF_CONSTRUCTION,
      distanceType: "cosine",
    }),
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

/** Whether a table of `rows` rows needs a first index, or a new one trained on its present size. */
export function needsIndex(serving: AnnIndexInfo | undefined, rows: number, threshold: number): boolean {
  if (rows < threshold) return false;
  return !serving || rows >= RETRAIN_GROWTH * Math.max(1, serving.trainedRows);
}
