/**
 * What the builtin-glove embedder computes from its word table, shared by the
 * embedder and by scripts/build-word-vectors.ts: which words the table holds, how
 * much each word weighs, and the common direction taken out of every sentence
 * vector. Changing anything here changes every stored builtin-glove vector.
 *
 * The sentence vector is Arora et al.'s SIF ("A simple but tough-to-beat baseline
 * for sentence embeddings", 2017): a weighted mean of word vectors where a word of
 * probability p weighs a / (a + p), less its projection on the common direction.
 * The table has no counts, only frequency ranks, so p comes from Zipf's law,
 * p ≈ 1 / ((rank + 1) · H) with H ≈ 13.5 for GloVe's 400k-word vocabulary; then
 * a / (a + p) = (rank + 1) / (rank + 1 + 1 / (a · H)).
 */
import { normalizeText } from "./builtin-features";
import type { WordTable } from "./word-table";

/** How many words the table keeps, most frequent first. */
export const WORD_VOCABULARY = 100_000;

/** 1 / (a · H): the rank at which a word weighs half as much as a rare one (a ≈ 1e-3). */
export const SIF_HALF_RANK = 75;

/** A word's SIF weight from its frequency rank: ≈ 0.01 for "the", 0.5 at rank 75, → 1 for rare words. */
export const sifWeight = (rank: number) => (rank + 1) / (rank + 1 + SIF_HALF_RANK);

const TABLE_WORD = /^[\p{L}\p{N}]+$/u;

/** The words the tokenizer can produce: one run of letters and digits, already normalised. */
export function isTableWord(word: string): boolean {
  return TABLE_WORD.test(word) && normalizeText(word) === word;
}

/**
 * The common direction of sentence vectors, derived from the table alone: the top
 * principal direction (uncentred, as SIF's) of the SIF-weighted word vectors with
 * each word counted by its Zipf probability — what the sentence vectors of any
 * large English corpus share. Power iteration from the weighted mean.
 */
export function commonDirection(t: WordTable): Float32Array {
  const { dims } = t;
  const cov = new Float64Array(dims * dims);
  const v = new Float64Array(dims);
  for (let i = 0; i < t.words.length; i++) {
    const s = sifWeight(t.ranks[i]) * t.scales[i];
    for (let d = 0; d < dims; d++) v[d] = s * t.codes[i * dims + d];
    const p = 1 / (t.ranks[i] + 1);
    for (let a = 0; a < dims; a++) {
      const pa = p * v[a];
      for (let b = 0; b < dims; b++) cov[a * dims + b] += pa * v[b];
    }
  }
  let u: Float64Array = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let iter = 0; iter < 100; iter++) {
    const next = new Float64Array(dims);
    for (let a = 0; a < dims; a++) for (let b = 0; b < dims; b++) next[a] += cov[a * dims + b] * u[b];
    // Not Math.hypot: its last bit may differ between engines, and this must not.
    let len = 0;
    for (let a = 0; a < dims; a++) len += next[a] * next[a];
    len = Math.sqrt(len);
    for (let a = 0; a < dims; a++) next[a] /= len;
    u = next;
  }
  return Float32Array.from(u);
}
