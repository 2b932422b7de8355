/** The hit shapes every search mode builds (search.ts, vector-hits.ts), and the score maps they share. */
import { chunkFieldsOf } from "./tables";

/** One hit; the caller resolves document metadata from SQLite. */
export interface StoredHit {
  documentId: string;
  chunkIndex: number;
  text: string;
  start: number;
  end: number;
  score: number;
  /**
   * Only from a search with `exact: false`, for a chunk found by one list only: the score
   * that list gave (the other half is unknown, so `score` is only a lower bound).
   */
  partial?: { keyword?: number; vector?: number };
}

/** A hit while it is ranked: with its row id and, when asked for, its stored vector. */
export interface Ranked extends StoredHit {
  id: string;
  /** Its stored vector, when asked for. */
  stored?: Iterable<number>;
}

/** The columns a hit is built from. */
export const COLUMNS = ["id", "document_id", "chunk_index", "text", "start", "end"];

/** BM25 per query term at which a keyword score is 0.5 (search.ts explains the map). */
const BM25_K = 4;

export function toHit(r: Record<string, unknown>, score: number): Ranked {
  return { ...chunkFieldsOf(r), score };
}

/** A keyword score in [0, 1) from BM25 per query term. */
export function saturate(perTerm: number): number {
  return perTerm > 0 ? perTerm / (perTerm + BM25_K) : 0;
}

export function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
