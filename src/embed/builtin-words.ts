/**
 * The word scan of the built-in embedder's fast path. It finds the words that
 * /[\p{L}\p{N}]+(?:[-_.'’][\p{L}\p{N}]+)*\/gu finds in a normalised text, copies them into
 * one buffer as " w1 w2 w3 " (the spaces are the edges of each word's n-grams), and hashes
 * each as it goes, without making a string per word. Scratch space for one text at a time
 * (each worker thread has its own), grown on demand.
 */
import { FNV_PRIME, SEED_WORD, STOPWORD_LIST, isJoiner, mix } from "./builtin-features";

/** A content word: longer than one character and not a stopword. */
export const CONTENT = 1;
/** A word with a joiner inside, a code such as "xk-4471". */
export const JOINED = 2;

export interface Words {
  /** Word codes, each followed by a space, after one leading space; then appended terms. */
  buf: Uint16Array;
  end: number;
  count: number;
  start: Int32Array;
  len: Int32Array;
  /** FNV-1a state over the word's UTF-16 units, from SEED_WORD, before mixing. */
  fnv: Int32Array;
  flags: Uint8Array;
}

export const words: Words = {
  buf: new Uint16Array(4096),
  end: 0,
  count: 0,
  start: new Int32Array(1024),
  len: new Int32Array(1024),
  fnv: new Int32Array(1024),
  flags: new Uint8Array(1024),
};

function growWords(): void {
  const size = words.start.length * 2;
  const grow = <T extends Int32Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
  words.start = grow(words.start, new Int32Array(size));
  words.len = grow(words.len, new Int32Array(size));
  words.fnv = grow(words.fnv, new Int32Array(size));
  words.flags = grow(words.flags, new Uint8Array(size));
}

/** Makes room for `extra` more codes in the buffer. */
function reserve(extra: number): void {
  if (words.end + extra <= words.buf.length) return;
  const b = new Uint16Array(Math.max(words.buf.length * 2, words.end + extra));
  b.set(words.buf.subarray(0, words.end));
  words.buf = b;
}

/** Letters and digits of the Basic Multilingual Plane, built when first needed. */
let bmpWordChars: Uint8Array | null = null;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const astral = new Map<number, boolean>();

function wordCharTable(): Uint8Array {
  const table = new Uint8Array(65536);
  for (let c = 0; c < 65536; c++)
    if (c < 0xd800 || c > 0xdfff) table[c] = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

/** UTF-16 units of the letter or digit at `i` of `text` (1, or 2 for a surrogate pair), else 0. */
function wordCharAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) ? 1 : 0;
  if (c < 0xd800 || c > 0xdfff) return (bmpWordChars ??= wordCharTable())[c]!;
  if (c > 0xdbff || i + 1 >= text.length) return 0;
  const low = text.charCodeAt(i + 1);
  if (low < 0xdc00 || low > 0xdfff) return 0;
  const cp = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  let is = astral.get(cp);
  if (is === undefined) astral.set(cp, (is = WORD_CHAR.test(String.fromCodePoint(cp))));
  return is ? 2 : 0;
}

// Stopwords by their word hash, checked again code by code.
const STOP_SLOTS = 512;
const stopSlots = new Int32Array(STOP_SLOTS);
const stopCodes = STOPWORD_LIST.map((w) => Array.from(w, (ch) => ch.charCodeAt(0)));
STOPWORD_LIST.forEach((w, i) => {
  let h = SEED_WORD;
  for (let k = 0; k < w.length; k++) h = Math.imul(h ^ w.charCodeAt(k), FNV_PRIME);
  let s = mix(h) & (STOP_SLOTS - 1);
  while (stopSlots[s] !== 0) s = (s + 1) & (STOP_SLOTS - 1);
  stopSlots[s] = i + 1;
});

function isStopword(start: number, len: number, hash: number): boolean {
  const buf = words.buf;
  for (let s = hash & (STOP_SLOTS - 1); stopSlots[s] !== 0; s = (s + 1) & (STOP_SLOTS - 1)) {
    const codes = stopCodes[stopSlots[s]! - 1]!;
    if (codes.length !== len) continue;
    let k = 0;
    while (k < len && buf[start + k] === codes[k]) k++;
    if (k === len) return true;
  }
  return false;
}

/** Scans a normalised (lower-case) text into `words`; returns the number of words. */
export function scanWords(text: string): number {
  const n = text.length;
  words.end = 0;
  reserve(n + 2);
  const buf = words.buf;
  let end = 0;
  buf[end++] = 32;
  let count = 0;
  let i = 0;
  while (i < n) {
    let units = wordCharAt(text, i);
    if (units === 0) {
      i++;
      continue;
    }
    if (count === words.start.length) growWords();
    const start = end;
    let h = SEED_WORD;
    let flags = 0;
    for (;;) {
      for (; units > 0; units--, i++) {
        const c = text.charCodeAt(i);
        buf[end++] = c;
        h = Math.imul(h ^ c, FNV_PRIME);
      }
      units = i < n ? wordCharAt(text, i) : 0;
      if (units > 0) continue;
      // A joiner continues the word only when a letter or digit follows it.
      if (i + 1 >= n || !isJoiner(text.charCodeAt(i)) || wordCharAt(text, i + 1) === 0) break;
      flags = JOINED;
      units = 1;
    }
    const len = end - start;
    buf[end++] = 32;
    if (len > 1 && (flags & JOINED || !isStopword(start, len, mix(h)))) flags |= CONTENT;
    words.start[count] = start;
    words.len[count] = len;
    words.fnv[count] = h;
    words.flags[count] = flags;
    count++;
  }
  words.end = end;
  words.count = count;
  return count;
}

/**
 * Appends a copy of the codes buf[from, from + len), without its joiners when `dropJoiners`
 * and then only of its parts longer than one character, followed by a space. Returns where
 * the copy starts; its length is words.end - start - 1.
 */
export function appendCopy(from: number, len: number, dropJoiners: boolean): number {
  reserve(len + 1);
  const buf = words.buf;
  const start = words.end;
  let end = start;
  if (!dropJoiners) {
    buf.copyWithin(start, from, from + len);
    end += len;
  } else {
    for (let p = from, stop = from + len; p < stop; ) {
      let q = p;
      while (q < stop && !isJoiner(buf[q]!)) q++;
      if (q - p > 1) for (let k = p; k < q; k++) buf[end++] = buf[k]!;
      p = q + 1;
    }
  }
  buf[end++] = 32;
  words.end = end;
  return start;
}
