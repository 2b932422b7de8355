/**
 * The built-in embedder's work for text with words: the features of the embedder as first
 * written (test/support/builtin-reference.ts), in the same order, so bit for bit the same
 * vector, without a string or a map lookup per word. Terms are slices of the word scan's
 * buffer (builtin-words.ts), found again through an open-addressing table keyed by their
 * hash. Tests check it against that reference.
 */
import {
  BIGRAM_SHARE,
  BUILTIN_DIMENSIONS,
  FNV_PRIME,
  NGRAM_SHARE,
  SEED_BIGRAM,
  SEED_NGRAM,
  SEED_WORD,
  addHashed,
  isJoiner,
  mix,
  normalize,
  normalizeText,
  rarityOf,
} from "./builtin-features";
import { CONTENT, JOINED, appendCopy, scanWords, words } from "./builtin-words";

/** Per distinct term, in order of first use. */
let termStart = new Int32Array(1024);
let termLen = new Int32Array(1024);
let termHash = new Uint32Array(1024);
let termCount = new Int32Array(1024);
let rarities = new Float64Array(1024);
/** Per selected word, its term. */
let wordTerm = new Int32Array(1024);
/** Term slots: term index + 1, 0 for empty. */
let slots = new Int32Array(2048);
let slotMask = 0;
let terms = 0;

function growTerms(): void {
  const size = termStart.length * 2;
  const grow = <T extends Int32Array | Uint32Array | Float64Array>(a: T, b: T): T => (b.set(a), b);
  termStart = grow(termStart, new Int32Array(size));
  termLen = grow(termLen, new Int32Array(size));
  termHash = grow(termHash, new Uint32Array(size));
  termCount = grow(termCount, new Int32Array(size));
  rarities = new Float64Array(size);
}

/** The term for the codes buf[start, start + len) with FNV state `fnv`, added if new. */
function intern(start: number, len: number, fnv: number): number {
  const buf = words.buf;
  const h = mix(fnv);
  let s = h & slotMask;
  for (let t = slots[s]! - 1; t >= 0; t = slots[s]! - 1) {
    if (termHash[t] === h && termLen[t] === len) {
      const at = termStart[t]!;
      let k = 0;
      while (k < len && buf[at + k] === buf[start + k]) k++;
      if (k === len) return t;
    }
    s = (s + 1) & slotMask;
  }
  if (terms === termStart.length) growTerms();
  // A code can add any number of terms: keep the table at most half full.
  if ((terms + 1) * 2 > slotMask) {
    rehash();
    s = h & slotMask;
    while (slots[s] !== 0) s = (s + 1) & slotMask;
  }
  termStart[terms] = start;
  termLen[terms] = len;
  termHash[terms] = h;
  termCount[terms] = 0;
  slots[s] = terms + 1;
  return terms++;
}

function rehash(): void {
  const size = (slotMask + 1) * 2;
  slots = new Int32Array(size);
  slotMask = size - 1;
  for (let t = 0; t < terms; t++) {
    let s = termHash[t]! & slotMask;
    while (slots[s] !== 0) s = (s + 1) & slotMask;
    slots[s] = t + 1;
  }
}

/** Copies codes into the buffer (see appendCopy) and interns the copy. */
function internCopy(from: number, len: number, dropJoiners: boolean): number {
  const start = appendCopy(from, len, dropJoiners);
  const end = words.end - 1;
  let h = SEED_WORD;
  for (let k = start; k < end; k++) h = Math.imul(h ^ words.buf[k]!, FNV_PRIME);
  return intern(start, end - start, h);
}

const expansion: number[] = [];

/** Counts a term once per word, as the reference's Set of a code's expansions does. */
function countOnce(t: number): void {
  if (expansion.includes(t)) return;
  expansion.push(t);
  termCount[t]!++;
}

/**
 * Interns a code as itself, joined up and as its parts longer than one character, in that
 * order, each counted once per word; returns the term of the code itself.
 */
function internCode(start: number, len: number, fnv: number): number {
  expansion.length = 0;
  const self = intern(start, len, fnv);
  countOnce(self);
  countOnce(internCopy(start, len, true));
  for (let p = start, stop = start + len; p < stop; ) {
    let q = p;
    while (q < stop && !isJoiner(words.buf[q]!)) q++;
    if (q - p > 1) countOnce(internCopy(p, q - p, false));
    p = q + 1;
  }
  return self;
}

/** Interns the terms of the selected words in order, counting them; returns how many words were selected. */
function collectTerms(contentOnly: boolean): number {
  const count = words.count;
  let size = 64;
  while (size < count * 2) size *= 2;
  if (slots.length < size) slots = new Int32Array(size);
  else slots.fill(0, 0, size);
  slotMask = size - 1;
  terms = 0;
  if (wordTerm.length < count) wordTerm = new Int32Array(words.start.length);
  let selected = 0;
  for (let w = 0; w < count; w++) {
    const flags = words.flags[w]!;
    if (contentOnly && !(flags & CONTENT)) continue;
    let t: number;
    if (!(flags & JOINED)) {
      t = intern(words.start[w]!, words.len[w]!, words.fnv[w]!);
      termCount[t]!++;
    } else t = internCode(words.start[w]!, words.len[w]!, words.fnv[w]!);
    wordTerm[selected++] = t;
  }
  return selected;
}

function rarityAt(start: number, len: number): number {
  let digits = false;
  let letters = false;
  for (let k = start; k < start + len; k++) {
    const c = words.buf[k]!;
    if (c >= 48 && c <= 57) digits = true;
    else if (!isJoiner(c)) letters = true;
  }
  return rarityOf(len, digits, letters);
}

/** Each term weighted (1 + ln tf) × rarity, with its character 3- to 5-grams. */
function addTerms(vec: Float32Array): void {
  for (let t = 0; t < terms; t++) {
    const start = termStart[t]!;
    const len = termLen[t]!;
    rarities[t] = rarityAt(start, len);
    const weight = (1 + Math.log(termCount[t]!)) * rarities[t]!;
    addHashed(vec, termHash[t]!, weight);
    // The spaces around each term are in the buffer.
    addNgrams(vec, words.buf, start, len, weight * NGRAM_SHARE);
  }
}

/**
 * Character 3- to 5-grams of the codes buf[start, start + len) between the spaces at
 * buf[start - 1] and buf[start + len], spread so their total weight is `weight`.
 */
export function addNgrams(vec: Float32Array, buf: Uint16Array, start: number, len: number, weight: number): void {
  if (len < 3) return;
  const from = start - 1;
  const n = len + 2;
  const w = weight / Math.sqrt(3 * n - 9);
  // One pass per start: the 3-gram's hash state extends to the 4- and 5-gram.
  for (let i = 0; i + 3 <= n; i++) {
    let h = SEED_NGRAM;
    const stop = Math.min(i + 5, n);
    for (let k = i; k < stop; k++) {
      h = Math.imul(h ^ buf[from + k]!, FNV_PRIME);
      if (k >= i + 2) {
        const m = mix(h);
        vec[(m & 0x7fffffff) % BUILTIN_DIMENSIONS] += m & 0x80000000 ? -w : w;
      }
    }
  }
}

// Word pairs by key; the reference keys a Map by the same 32-bit hash.
let pairSlots = new Int32Array(2048);
let pairKeys = new Int32Array(1024);
let pairCounts = new Int32Array(1024);
let pairWeights = new Float64Array(1024);

/** Each distinct pair of neighbouring words, weighted by tf and both words' rarity. */
function addBigrams(vec: Float32Array, selected: number): void {
  let size = 64;
  while (size < selected * 2) size *= 2;
  if (pairSlots.length < size) pairSlots = new Int32Array(size);
  else pairSlots.fill(0, 0, size);
  if (pairKeys.length < selected) {
    pairKeys = new Int32Array(selected);
    pairCounts = new Int32Array(selected);
    pairWeights = new Float64Array(selected);
  }
  const mask = size - 1;
  let pairs = 0;
  let prev = wordTerm[0]!;
  for (let i = 1; i < selected; i++) {
    const cur = wordTerm[i]!;
    const key = mix(Math.imul(termHash[prev]! ^ SEED_BIGRAM, 0x9e3779b1) ^ termHash[cur]!) | 0;
    let s = key & mask;
    let at = -1;
    for (let p = pairSlots[s]! - 1; p >= 0; p = pairSlots[s]! - 1) {
      if (pairKeys[p] === key) {
        at = p;
        break;
      }
      s = (s + 1) & mask;
    }
    if (at < 0) {
      pairSlots[s] = pairs + 1;
      pairKeys[pairs] = key;
      pairCounts[pairs] = 1;
      pairWeights[pairs] = Math.sqrt(rarities[prev]! * rarities[cur]!);
      pairs++;
    } else pairCounts[at]!++;
    prev = cur;
  }
  for (let i = 0; i < pairs; i++)
    addHashed(vec, pairKeys[i]!, (1 + Math.log(pairCounts[i]!)) * BIGRAM_SHARE * pairWeights[i]!);
}

/**
 * The vector of a text with at least one word, exactly as the reference makes it; null
 * for text without words, which builtin.ts embeds by its characters.
 */
export function embedFast(text: string): Float32Array<ArrayBuffer> | null {
  const count = scanWords(normalizeText(text));
  if (count === 0) return null;
  let content = false;
  for (let w = 0; w < count && !content; w++) content = (words.flags[w]! & CONTENT) !== 0;
  const selected = collectTerms(content);
  const vec = new Float32Array(BUILTIN_DIMENSIONS);
  addTerms(vec);
  addBigrams(vec, selected);
  return normalize(vec);
}
