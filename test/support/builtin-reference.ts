/**
 * The built-in embedder as first written, kept as the reference its fast path must
 * match bit for bit: strings, regular expressions, Sets and Maps, one step at a time.
 * Tests only; stored vectors depend on every detail, so this file does not change.
 */
import {
  BIGRAM_SHARE,
  BUILTIN_DIMENSIONS,
  FNV_PRIME,
  NGRAM_SHARE,
  SEED_BIGRAM,
  SEED_NGRAM,
  SEED_WORD,
  STOPWORD_LIST,
  addHashed,
  isJoiner,
  mix,
  normalize,
  normalizeText,
  rarityOf,
} from "../../src/embed/builtin-features";

// Joiners keep codes such as "xk-4471", "v2.1" or "snake_case" whole.
const JOINER = /[-_.'’]/;

/** A code counts as itself, joined up and as its parts: "xk-4471" matches "XK4471" and "XK 4471". */
function expandCode(word: string): string[] {
  const parts = word.split(JOINER).filter((p) => p.length > 1);
  return [...new Set([word, parts.join(""), ...parts])];
}

const STOPWORDS = new Set(STOPWORD_LIST);

// Words, keeping codes such as "xk-4471", "v2.1" or "snake_case" whole.
const WORD = /[\p{L}\p{N}]+(?:[-_.'’][\p{L}\p{N}]+)*/gu;
/** FNV-1a over a string's UTF-16 units, mixed. */
function hash(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return mix(h);
}

/** A stand-in for IDF: long words and letter-digit codes are rarer than short words. */
function rarity(word: string): number {
  let digits = false;
  let letters = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) digits = true;
    else if (!isJoiner(c)) letters = true;
  }
  return rarityOf(word.length, digits, letters);
}

/** Character 3- to 5-grams of " word ", spread so their total weight is `weight`. */
function addNgrams(vec: Float32Array, word: string, weight: number): void {
  if (word.length < 3) return;
  // " word " without building it: position p is a space at either end, else word[p - 1].
  const n = word.length + 2;
  const w = weight / Math.sqrt(3 * n - 9);
  // One pass per start: the 3-gram's hash state extends to the 4- and 5-gram.
  for (let i = 0; i + 3 <= n; i++) {
    let h = SEED_NGRAM;
    const stop = Math.min(i + 5, n);
    for (let k = i; k < stop; k++) {
      h = Math.imul(h ^ (k === 0 || k === n - 1 ? 32 : word.charCodeAt(k - 1)), FNV_PRIME);
      if (k >= i + 2) {
        const m = mix(h);
        vec[(m & 0x7fffffff) % BUILTIN_DIMENSIONS] += m & 0x80000000 ? -w : w;
      }
    }
  }
}

/** True when a word has a joiner inside ("xk-4471", "v2.1", "snake_case"). */
function hasJoiner(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (isJoiner(word.charCodeAt(i))) return true;
  return false;
}

/** The terms of `words`: each word, and a code's expansions in its place. */
function termsOf(words: string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    if (!hasJoiner(w)) out.push(w);
    else for (const t of expandCode(w)) out.push(t);
  }
  return out;
}

/** The words to embed: content words, or every word when there are none ("to be or not"). */
function contentWords(text: string): string[] {
  const all = normalizeText(text).match(WORD) ?? [];
  const content = all.filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return content.length > 0 ? content : all;
}

/** The distinct terms of a text in order of first use, with their counts, hashes and rarities. */
interface Terms {
  position: Map<string, number>;
  counts: number[];
  hashes: number[];
  rarities: number[];
}

/** Adds each distinct term, weighted (1 + ln tf) × rarity, with its n-grams. */
function addTerms(vec: Float32Array, terms: string[]): Terms {
  const position = new Map<string, number>();
  const distinct: string[] = [];
  const counts: number[] = [];
  for (const t of terms) {
    const at = position.get(t);
    if (at === undefined) {
      position.set(t, distinct.length);
      distinct.push(t);
      counts.push(1);
    } else counts[at]!++;
  }
  const hashes: number[] = new Array(distinct.length);
  const rarities: number[] = new Array(distinct.length);
  for (let i = 0; i < distinct.length; i++) {
    const term = distinct[i]!;
    hashes[i] = hash(term, SEED_WORD);
    rarities[i] = rarity(term);
    const weight = (1 + Math.log(counts[i]!)) * rarities[i]!;
    addHashed(vec, hashes[i]!, weight);
    addNgrams(vec, term, weight * NGRAM_SHARE);
  }
  return { position, counts, hashes, rarities };
}

/**
 * Adds each distinct pair of neighbouring words, weighted by tf and both words' rarity.
 * Pairs are keyed by a hash of the two word hashes, which is faster than pair strings.
 */
function addBigrams(vec: Float32Array, words: string[], terms: Terms): void {
  // `| 0`: int32 keys are much faster Map keys than doubles above 2^31.
  const position = new Map<number, number>();
  const keys: number[] = [];
  const counts: number[] = [];
  const weights: number[] = [];
  let prev = terms.position.get(words[0]!)!;
  for (let i = 1; i < words.length; i++) {
    const cur = terms.position.get(words[i]!)!;
    const key = mix(Math.imul(terms.hashes[prev]! ^ SEED_BIGRAM, 0x9e3779b1) ^ terms.hashes[cur]!) | 0;
    const at = position.get(key);
    if (at === undefined) {
      position.set(key, keys.length);
      keys.push(key);
      counts.push(1);
      weights.push(Math.sqrt(terms.rarities[prev]! * terms.rarities[cur]!));
    } else counts[at]!++;
    prev = cur;
  }
  for (let i = 0; i < keys.length; i++)
    addHashed(vec, keys[i]!, (1 + Math.log(counts[i]!)) * BIGRAM_SHARE * weights[i]!);
}

/** The vector of any text, as the built-in embedder first computed it. */
export function embedReference(text: string): Float32Array<ArrayBuffer> {
  const vec = new Float32Array(BUILTIN_DIMENSIONS);
  const words = contentWords(text);
  if (words.length === 0) {
    const symbols = text.replace(/\s+/g, "");
    if (symbols.length > 0) addNgrams(vec, symbols.slice(0, 1000), 1);
    for (const ch of symbols.slice(0, 1000)) addHashed(vec, hash(ch, SEED_WORD), 1);
    return normalize(vec);
  }
  const terms = addTerms(vec, termsOf(words));
  addBigrams(vec, words, terms);
  return normalize(vec);
}
