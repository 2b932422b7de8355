/**
 * What the built-in embedder hashes and how: its dimension, seeds, weights, stopwords
 * and hash functions, shared by its code and by the reference its tests compare it
 * with. Changing anything here changes every stored builtin vector.
 */

export const BUILTIN_DIMENSIONS = 384;

// A word's character n-grams weigh as much as the word itself, so that plurals, other
// inflections and typos still match; word pairs add a little for phrases.
export const NGRAM_SHARE = 1;
export const BIGRAM_SHARE = 0.3;
export const SEED_WORD = 0x811c9dc5;
export const SEED_NGRAM = 0x050c5d1f;
export const SEED_BIGRAM = 0x2b8e6a91;
export const FNV_PRIME = 0x01000193;

export const STOPWORD_LIST = (
  "a about above after again against all am an and any are as at be because been before being below between both " +
  "but by can could did do does doing down during each few for from further had has have having he her here hers " +
  "him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our " +
  "ours out over own same she should so some such than that the their theirs them then there these they this those " +
  "through to too under until up very was we were what when where which while who whom why will with would you " +
  "your yours"
).split(" ");

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for the whole ASCII range
const ASCII = /^[\x00-\x7f]*$/;

/** Lower-cased NFKC text with Latin accents stripped ("Café" → "cafe"). */
export function normalizeText(text: string): string {
  // Pure ASCII needs no Unicode normalisation, and is most text: skip the cost.
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFKC")
    .toLowerCase();
}

/** True for the joiner characters - _ . ' ’ (UTF-16 units). */
export const isJoiner = (c: number) => c === 45 || c === 95 || c === 46 || c === 39 || c === 0x2019;

/** Murmur3's finaliser: FNV-1a's low bits are weak, and this moves every bit into every bit. */
export function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Adds `weight` to the dimension a hash picks, with the sign its top bit picks. */
export function addHashed(vec: Float32Array, h: number, weight: number): void {
  vec[(h & 0x7fffffff) % BUILTIN_DIMENSIONS] += h & 0x80000000 ? -weight : weight;
}

/**
 * A stand-in for IDF from a term's length and whether it holds digits and letters: long
 * words and letter-digit codes are rarer than short words.
 */
export function rarityOf(length: number, digits: boolean, letters: boolean): number {
  const byLength = Math.min(1 + 0.25 * (length - 3), 3);
  if (digits && letters) return Math.max(byLength, 1) * 2.5;
  return digits ? 1.5 : Math.max(byLength, 0.75);
}

/** Scales `vec` to unit length in place; a zero vector stays zero. */
export function normalize<T extends Float32Array>(vec: T): T {
  let sum = 0;
  for (let i = 0; i < vec.length; i++) sum += vec[i] * vec[i];
  if (sum === 0) return vec;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vec.length; i++) vec[i] *= inv;
  return vec;
}
