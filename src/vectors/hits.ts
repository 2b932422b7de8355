/** The hit shapes every search mode builds (search.ts, vector-hits.ts), and the score maps they share. */
import type { Table } from "@lancedb/lancedb";
import type { Table as ArrowTable, Vector } from "apache-arrow";
import { chunkId } from "./chunk-id";
import { METADATA_COLUMN } from "./meta-index";

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
  /**
   * Only from a search asked for `labels` (TableSearch): the row's metadata copy (meta-index.ts)
   * as the read that found it saw it, in the same read that applied the search's filter.
   */
  labels?: string;
}

/** A hit while it is ranked: with its row id and, when asked for, its stored vector. */
export interface Ranked extends StoredHit {
  id: string;
  /** Its stored vector, when asked for. */
  stored?: Float32Array;
  /** Only on a hit read without its text (LIST_COLUMNS): its LanceDB row id, to read the text by (hit-text.ts). */
  rowId?: bigint;
}

/**
 * The columns a hit is built from. A row's id is rebuilt from two of them (chunk-id.ts), so
 * it is not read: each column a search returns is one more read per hit in LanceDB and one
 * more to decode here: at 20,000 rows (HNSW), each column cost a search about 0.3 ms of
 * CPU, and dropping this one cut a sequential search from 5.9–7.3 to 5.5–5.8 ms; hybrid,
 * whose lists all read these columns, went from 17–20 to 11–16 ms of LanceDB CPU per
 * request (bench/query-concurrency.ts).
 */
export const COLUMNS = ["document_id", "chunk_index", "text", "start", "end"];

/**
 * The columns a ranking list reads, with LanceDB's row ids (`withRowId`): what names a hit, not its text. A list reads 50–200 rows
 * of which a search keeps topK, so their text, start and end are read once, for the hits
 * kept, by row id (hit-text.ts): at 100,000 rows a hybrid search of topK 10 went from 44 to
 * 35 ms, of topK 50 from 69 to 50 ms, before that read (docs/notes/2026-12-06-query-options.md).
 */
export const LIST_COLUMNS = ["document_id", "chunk_index"];

/** How a list's hits are read: without their text (`bare`), with their rows' metadata copies (`labels`). */
export interface HitRead {
  bare: boolean;
  labels: boolean;
}

/** The columns a hit is read with: a list's or a hit's (`bare`), with the row's metadata copy when `labels`. */
export function hitColumns(bare: boolean, labels = false): string[] {
  const columns = bare ? LIST_COLUMNS : COLUMNS;
  return labels ? [...columns, METADATA_COLUMN] : columns;
}

/** BM25 per query term at which a keyword score is 0.5 (search.ts explains the map). */
const BM25_K = 4;

/**
 * The hits of a search's result, in its order, read column by column: row objects
 * (Arrow's toArray) answer each field through a proxy, which cost the main thread about
 * a tenth of its time per query. `score` maps a row's index to its score; with
 * `withVectors`, each hit also carries its stored vector.
 */
export function hitsOf(t: ArrowTable, score: (i: number) => number, withVectors = false): Ranked[] {
  // A search that found nothing may return no batch at all, and so no columns.
  if (t.numRows === 0) return [];
  const col = (name: string) => {
    const c = t.getChild(name);
    if (!c) throw new Error(`a search result lacks its ${name} column`);
    return c;
  };
  const documentIds = col("document_id").toArray() as string[];
  const chunkIndexes = col("chunk_index").toArray() as Int32Array;
  // A list (LIST_COLUMNS) reads no text: its hits have "" until hit-text.ts reads it.
  const texts = t.getChild("text")?.toArray() as string[] | undefined;
  const starts = t.getChild("start")?.toArray() as Int32Array | undefined;
  const ends = t.getChild("end")?.toArray() as Int32Array | undefined;
  const rowIds = t.getChild("_rowid")?.toArray() as BigUint64Array | undefined;
  const labels = t.getChild(METADATA_COLUMN);
  const vectors = withVectors ? col("vector") : null;
  const hits: Ranked[] = [];
  for (let i = 0; i < t.numRows; i++) {
    const documentId = String(documentIds[i]);
    const chunkIndex = chunkIndexes[i]!;
    const hit: Ranked = {
      id: chunkId(documentId, chunkIndex),
      documentId,
      chunkIndex,
      text: texts ? String(texts[i]) : "",
      start: starts ? starts[i]! : 0,
      end: ends ? ends[i]! : 0,
      score: score(i),
    };
    if (!texts && rowIds) hit.rowId = rowIds[i]!;
    if (vectors) hit.stored = vectorAt(vectors, i);
    if (labels) hit.labels = String(labels.get(i));
    hits.push(hit);
  }
  return hits;
}

/** A result's numeric column (`_distance`, `_score`) as numbers by row. */
export function numbersOf(t: ArrowTable, name: string): ArrayLike<number> {
  return (t.getChild(name)?.toArray() as ArrayLike<number> | undefined) ?? [];
}

/** A keyword score in [0, 1) from BM25 per query term. */
export function saturate(perTerm: number): number {
  return perTerm > 0 ? perTerm / (perTerm + BM25_K) : 0;
}

export function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/**
 * Row `i` of a vector column, as a view of the column's memory: copying it through Arrow's
 * iterator instead took 9 ms for 300 rows of 384 dimensions, this 0.5 ms.
 */
export function vectorAt(column: Vector, i: number): Float32Array {
  return (column.get(i) as Vector).toArray() as Float32Array;
}

/**
 * The stored vectors of rows, by LanceDB row id, in one take. A row written over or
 * compacted away since its id was read is missing from the map (a take of ids of which
 * none is left answers without columns; one past the table's rows fails, as in hit-text.ts).
 */
export async function vectorsByRowId(table: Table, rowIds: bigint[]): Promise<Map<bigint, Float32Array>> {
  if (rowIds.length === 0) return new Map();
  const rows = await table
    .takeRowIds(rowIds)
    .select(["vector"])
    .withRowId()
    .toArrow()
    .catch(() => null);
  const ids = rows?.getChild("_rowid")?.toArray() as BigUint64Array | undefined;
  const vectors = rows?.getChild("vector");
  if (!ids || !vectors) return new Map();
  return new Map(Array.from(ids, (id, i) => [id, vectorAt(vectors, i)]));
}

/** Exact cosine similarity of the query to a stored vector (clamped to [0, 1], as vector mode). */
export function cosine(query: Float32Array, qNorm: number, v: Float32Array): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < query.length; i++) {
    const x = v[i]!;
    dot += x * query[i]!;
    norm += x * x;
  }
  return clamp01(norm > 0 && qNorm > 0 ? dot / (Math.sqrt(norm) * qNorm) : 0);
}
