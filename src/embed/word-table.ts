/**
 * The binary layout of the word-vector table that scripts/build-word-vectors.ts
 * derives and the builtin-glove embedder reads (all little-endian):
 *
 *   "RGWV", u32 version, u32 word count n, u32 dimensions d,
 *   f32[d] common direction, u32[n] frequency ranks, f32[n] scales,
 *   i8[n·d] vectors (word i's vector is scales[i] · codes[i·d .. i·d + d)),
 *   then the words in UTF-8, one per line, in table order.
 */

export interface WordTable {
  dims: number;
  words: string[];
  /** The word's position in the source's frequency order (0 = most frequent). */
  ranks: Uint32Array;
  scales: Float32Array;
  codes: Int8Array;
  /** Unit vector removed from every sentence vector (see glove-features.ts). */
  common: Float32Array;
}

const MAGIC = 0x56574752; // "RGWV" read as a little-endian u32
const VERSION = 1;
const HEADER = 16;

/** The table as bytes. */
export function encodeTable(t: WordTable): Uint8Array {
  const n = t.words.length;
  const words = new TextEncoder().encode(t.words.join("\n"));
  const codesAt = HEADER + 4 * t.dims + 8 * n;
  const out = new Uint8Array(codesAt + n * t.dims + words.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, n, true);
  view.setUint32(12, t.dims, true);
  out.set(new Uint8Array(t.common.buffer, t.common.byteOffset, t.common.byteLength), HEADER);
  out.set(new Uint8Array(t.ranks.buffer, t.ranks.byteOffset, t.ranks.byteLength), HEADER + 4 * t.dims);
  out.set(new Uint8Array(t.scales.buffer, t.scales.byteOffset, t.scales.byteLength), HEADER + 4 * t.dims + 4 * n);
  out.set(new Uint8Array(t.codes.buffer, t.codes.byteOffset, t.codes.byteLength), codesAt);
  out.set(words, codesAt + n * t.dims);
  return out;
}

/** Reads a table written by encodeTable; throws when the bytes are not one. */
export function decodeTable(bytes: Uint8Array): WordTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION) {
    throw new Error("the word-vector table is not in the expected format: rebuild it (scripts/build-word-vectors.ts)");
  }
  const n = view.getUint32(8, true);
  const dims = view.getUint32(12, true);
  // Copies into fresh, aligned arrays: the bytes may sit at any offset of a larger buffer
  // (a Buffer's slice() shares it, so the copy goes through a plain Uint8Array).
  const at = (offset: number, length: number) =>
    new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length).slice().buffer;
  const common = new Float32Array(at(HEADER, 4 * dims));
  const ranks = new Uint32Array(at(HEADER + 4 * dims, 4 * n));
  const scales = new Float32Array(at(HEADER + 4 * dims + 4 * n, 4 * n));
  const codesAt = HEADER + 4 * dims + 8 * n;
  const codes = new Int8Array(at(codesAt, n * dims));
  const words = new TextDecoder().decode(bytes.subarray(codesAt + n * dims)).split("\n");
  if (words.length !== n)
    throw new Error("the word-vector table is truncated: rebuild it (scripts/build-word-vectors.ts)");
  return { dims, words, ranks, scales, codes, common };
}
