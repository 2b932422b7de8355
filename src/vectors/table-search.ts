/**
 * What a search of one table is asked (TableSearch) and how its keyword list is read
 * (KeywordReading): the shapes search.ts and source-chunks.ts share.
 */
import type { VectorKind } from "./ann-probes";
import type { AnalysedQuery } from "./full-text";

export type SearchMode = "vector" | "keyword" | "hybrid";

/** One search of one table, as the retrieval layer asks for it. */
export interface TableSearch {
  mode: SearchMode;
  text: string;
  vector?: Float32Array;
  topK: number;
  minScore?: number;
  documentIds?: string[];
  /**
   * Vector and keyword mode: only these chunks (ids, chunk-id.ts), each scored as the
   * search without them scores it: the exact scores a reranked pool's chosen chunks lack
   * (retrieval/searcher.ts).
   */
  chunkIds?: string[];
  /** A metadata filter as SQL over the metadata column (retrieval/filter.ts); applied before ranking. */
  where?: string;
  /** Hybrid only: the blend, 0 = keyword only … 1 = vector only (default 0.5). */
  hybridAlpha?: number;
  /**
   * Hybrid only: false blends just the scores the two lists gave, a missing one
   * counted 0, with no per-candidate look-ups: cheaper, for a pool a reranker will
   * order (docs/API.md, Reranking). Such scores may be lower bounds, marked `partial`.
   */
  exact?: boolean;
  /** Where the table's vectors come from, which sets the share of IVF partitions probed (ann-probes.ts); default builtin. */
  vectorKind?: VectorKind;
  /** The query as analysed for a table with analysed text (full-text.ts); absent for a table made before languages. */
  analysed?: AnalysedQuery;
  /**
   * Vector and hybrid, with `documentIds`: rank every chunk of those sources by exact lists
   * (source-chunks.ts) rather than search them, unless those lists cannot settle the order.
   */
  readWhole?: boolean;
  /**
   * With readWhole: the chunks those sources hold by their rows in SQLite, so the table
   * need not count them first (an estimate: source-chunks.ts checks the lists it reads).
   */
  wholeRows?: number;
  /**
   * Hybrid only: the lists read as deep as a search of this many results would (default
   * topK; search.ts says how deep). A grouped pool asks for more chunks than it answers
   * with, from lists as deep as the answer's (retrieval/grouping.ts).
   */
  listsFor?: number;
  /**
   * Each hit with its row's metadata copy (StoredHit.labels), read by the list that found it,
   * which applied `where`: what a restricted caller's results are checked against
   * (retrieval/current-labels.ts).
   */
  labels?: boolean;
}

/** The terms of `text` as a full-text index with ragd's settings makes them. */
export type Tokenize = (text: string) => Promise<string[]>;

/** How keywordHits reads: see its comment. */
export interface KeywordReading {
  withVectors?: boolean;
  fast?: boolean;
  bare?: boolean;
  tokenize?: Tokenize;
  /**
   * The table may hold rows outside its full-text index: a clause's list read deeper is
   * read DEEPEST_ROWS deep at once, since each read scans those rows again (clause-search.ts).
   */
  tail?: boolean;
  /** Hits with their rows' metadata copies (TableSearch.labels). */
  labels?: boolean;
}
