/** For the vector tests: seeded numbers and vectors, so a failure is reproducible, and exact answers. */
import type { Table } from "@lancedb/lancedb";

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
