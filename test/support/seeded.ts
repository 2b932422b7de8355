/** Seeded numbers and vectors for the vector tests, so a failure is reproducible. */

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
