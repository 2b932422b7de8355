/** For the vector tests: seeded numbers, vectors and rows, so a failure is reproducible, and exact answers. */
import type { Table } from "@lancedb/lancedb";
import type { ChunkRow } from "../../src/vectors/tables";

/** A linear congruential generator of numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `v` scaled to length 1. */
export function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** A random direction of `dim` dimensions, of length 1. */
export function randomUnit(rnd: () => number, dim: number): Float32Array {
  return unit(Float32Array.from({ length: dim }, () => rnd() * 2 - 1));
}

/** The ids of the 10 rows nearest `vector` among those `where` matches, by exact search. */
export async function exactIds(table: Table, vector: Float32Array, where: string): Promise<string[]> {
  const rows = await table
    .vectorSearch(vector)
    .distanceType("cosine")
    .bypassVectorIndex()
    .where(where)
    .limit(10)
    .toArray();
  return rows.map((r) => `${r.id}`);
}

/** One chunk row per vector, of documents `d0`, `d1`, …: a table for ANN tests. */
export function oneChunkRows(vectors: Float32Array[]): ChunkRow[] {
  return vectors.map((vector, i) => ({
    id: `d${i}:0`,
    documentId: `d${i}`,
    chunkIndex: 0,
    text: `row ${i}`,
    start: 0,
    end: 5,
    vector,
  }));
}
