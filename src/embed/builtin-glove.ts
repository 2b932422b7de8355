/**
 * The `builtin-glove` embedder: the built-in hashed vector (builtin.ts, 384
 * dimensions: shared words and spellings) followed by a SIF sentence vector of
 * GloVe word vectors (100 dimensions: meaning — "heart attack" near "myocardial
 * infarction"), 484 in all. No network, no model download: the word table is derived
 * at build time (scripts/build-word-vectors.ts) and carried inside the executable.
 * The weights are in glove-features.ts; docs/API.md (The built-in models) says what
 * the model is for and how it was measured.
 */
import { readFileSync } from "node:fs";
import { embedBuiltin, embedInTurns, BUILTIN_DIMENSIONS, normalizeText } from "./builtin";
import { mix } from "./builtin-features";
import { sifWeight } from "./glove-features";
import type { Embedder } from "./types";
import { decodeTable } from "./word-table";
import tablePath from "./generated/word-vectors.bin" with { type: "file" };

export const GLOVE_MODEL = "builtin-glove";
export const GLOVE_WORD_DIMENSIONS = 100;
export const GLOVE_DIMENSIONS = BUILTIN_DIMENSIONS + GLOVE_WORD_DIMENSIONS;

/**
 * How much the word-vector part weighs against the hashed part: cosine similarity
 * of two texts is (hashed cosine + β² · word-vector cosine) / (1 + β²) when both
 * parts are non-zero. Chosen on half a of SciFact (docs/API.md, The built-in models).
 */
export const GLOVE_WEIGHT = 0.75;

interface Loaded {
  /** Every word's UTF-16 units back to back; word i is chars[starts[i] .. starts[i + 1]). */
  chars: Uint16Array;
  starts: Int32Array;
  /** Open addressing on the word's hash: word index + 1, 0 for empty. */
  slots: Int32Array;
  /** Per word, its SIF weight times its quantisation scale. */
  factors: Float32Array;
  codes: Int8Array;
  common: Float32Array;
}

let loaded: Loaded | null = null;

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of chars[from .. to), finished with Murmur3's mixer so the low bits spread. */
function hashOf(chars: Uint16Array, from: number, to: number): number {
  let h = FNV_BASIS;
  for (let i = from; i < to; i++) h = Math.imul(h ^ chars[i], FNV_PRIME);
  return mix(h);
}

/** The table, read on first use (about 12 MB; a process that never embeds with this model never reads it). */
function table(): Loaded {
  if (loaded) return loaded;
  const t = decodeTable(readFileSync(tablePath));
  if (t.dims !== GLOVE_WORD_DIMENSIONS) throw new Error(`the word-vector table has ${t.dims} dimensions, not 100`);
  const n = t.words.length;
  const starts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) starts[i + 1] = starts[i] + t.words[i].length;
  const chars = new Uint16Array(starts[n]);
  t.words.forEach((w, i) => {
    for (let k = 0; k < w.length; k++) chars[starts[i] + k] = w.charCodeAt(k);
  });
  // A power of two at least 2.5 times the words, so probes stay short.
  const slots = new Int32Array(1 << Math.ceil(Math.log2(n * 2.5)));
  const mask = slots.length - 1;
  for (let i = 0; i < n; i++) {
    let s = hashOf(chars, starts[i], starts[i + 1]) & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = i + 1;
  }
  const factors = new Float32Array(n);
  for (let i = 0; i < n; i++) factors[i] = sifWeight(t.ranks[i]) * t.scales[i];
  loaded = { chars, starts, slots, factors, codes: t.codes, common: t.common };
  return loaded;
}

/** The index of the word text[from .. to), whose hashOf is `hash`, in the table, or -1. */
function lookup(t: Loaded, text: string, from: number, to: number, hash: number): number {
  const mask = t.slots.length - 1;
  const len = to - from;
  for (let s = hash & mask; t.slots[s] !== 0; s = (s + 1) & mask) {
    const i = t.slots[s] - 1;
    const at = t.starts[i];
    if (t.starts[i + 1] - at !== len) continue;
    let k = 0;
    while (k < len && t.chars[at + k] === text.charCodeAt(from + k)) k++;
    if (k === len) return i;
  }
  return -1;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** True for a UTF-16 unit that is part of a word: ASCII letters and digits by range, the rest by Unicode class. */
function inWord(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
  // Surrogate halves are taken by the code point they belong to.
  const cp = text.codePointAt(c >= 0xdc00 && c <= 0xdfff && i > 0 ? i - 1 : i) ?? c;
  return LETTER_OR_DIGIT.test(String.fromCodePoint(cp));
}

/**
 * The SIF sentence vector of `text`: unit length, or zero when no word of it is in
 * the table. Deterministic: words are summed in text order in float64.
 */
export function embedWords(text: string): Float32Array<ArrayBuffer> {
  const t = table();
  const { factors, codes, common } = t;
  const D = GLOVE_WORD_DIMENSIONS;
  const sum = new Float64Array(D);
  const norm = normalizeText(text);
  for (let start = 0; start < norm.length; ) {
    if (!inWord(norm, start)) {
      start++;
      continue;
    }
    // The word's hash as it is scanned, as hashOf computes it from the table's units.
    let h = FNV_BASIS;
    let end = start;
    while (end < norm.length && inWord(norm, end)) h = Math.imul(h ^ norm.charCodeAt(end++), FNV_PRIME);
    const i = lookup(t, norm, start, end, mix(h));
    start = end;
    if (i < 0) continue;
    const f = factors[i];
    const at = i * D;
    for (let d = 0; d < D; d++) sum[d] += f * codes[at + d];
  }
  let dot = 0;
  for (let d = 0; d < D; d++) dot += sum[d] * common[d];
  let len = 0;
  for (let d = 0; d < D; d++) {
    sum[d] -= dot * common[d];
    len += sum[d] * sum[d];
  }
  const out = new Float32Array(D);
  if (len === 0) return out;
  const inv = 1 / Math.sqrt(len);
  for (let d = 0; d < D; d++) out[d] = sum[d] * inv;
  return out;
}

/**
 * Embeds one text into a unit-length 484-dimension vector: the builtin vector and
 * the word vector weighted by GLOVE_WEIGHT. Only whitespace-only text gives zero.
 *
 * @example cosine(embedGlove("heart attack"), embedGlove("myocardial infarction")) // > cosine with "tax return"
 */
export function embedGlove(text: string, weight = GLOVE_WEIGHT): Float32Array<ArrayBuffer> {
  const hashed = embedBuiltin(text);
  const words = embedWords(text);
  const out = new Float32Array(GLOVE_DIMENSIONS);
  out.set(hashed);
  let len = 0;
  for (let d = 0; d < BUILTIN_DIMENSIONS; d++) len += hashed[d] * hashed[d];
  for (let d = 0; d < GLOVE_WORD_DIMENSIONS; d++) {
    const x = weight * words[d];
    out[BUILTIN_DIMENSIONS + d] = x;
    len += x * x;
  }
  if (len === 0) return out;
  const inv = 1 / Math.sqrt(len);
  for (let d = 0; d < GLOVE_DIMENSIONS; d++) out[d] *= inv;
  return out;
}

/** The builtin-glove embedder as an Embedder: synchronous work, yielding between batches. */
export class GloveEmbedder implements Embedder {
  readonly name = GLOVE_MODEL;

  /** Embeds `texts` in order; checks `signal` every 256 texts. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array<ArrayBuffer>[]> {
    return embedInTurns(texts, embedGlove, signal);
  }

  /** Always 484. */
  async dimensions(): Promise<number> {
    return GLOVE_DIMENSIONS;
  }
}
