/**
 * Offset helpers shared by every chunker. Chunkers work on [start, end) ranges of the
 * source text and only slice it once, at the end, so that chunk.text always equals
 * source.slice(start, end) and no strategy builds strings piece by piece.
 */
import type { Chunk } from "../types";

/** A [start, end) range of character offsets in the source text. */
export type Range = [start: number, end: number];

/** True for exactly the characters JavaScript's `\s` matches. */
export function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** True when text[start, end) holds only whitespace. */
export function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/** True when `pos` falls between the two halves of a surrogate pair. */
export function isPairMiddle(text: string, pos: number): boolean {
  if (pos <= 0 || pos >= text.length) return false;
  const hi = text.charCodeAt(pos - 1);
  const lo = text.charCodeAt(pos);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/** Moves a cut back by one when it would split a surrogate pair. */
export function safeCut(text: string, pos: number): number {
  return isPairMiddle(text, pos) ? pos - 1 : pos;
}

/**
 * Cuts text[start, end) into windows of at most `size` characters that repeat at most
 * `overlap` characters, never splitting a surrogate pair. The last resort for words
 * longer than a chunk.
 */
export function hardSplit(text: string, start: number, end: number, size: number, overlap: number, out: Range[]): void {
  let s = start;
  for (;;) {
    let e = safeCut(text, Math.min(end, s + size));
    // size 1 cannot hold an astral character: take the whole pair rather than stall.
    if (e <= s) e = Math.min(end, s + 2);
    out.push([s, e]);
    if (e >= end) return;
    let next = Math.max(e - overlap, s + 1);
    if (isPairMiddle(text, next)) next++;
    s = next;
  }
}

/**
 * Turns ranges into numbered chunks. With `trim`, whitespace at the edges is dropped;
 * whitespace-only ranges and ranges that add nothing past the previous chunk are skipped,
 * so that starts strictly increase and every chunk carries new text.
 */
export function toChunks(text: string, ranges: Range[], trim = true): Chunk[] {
  const kept: Range[] = [];
  for (const [s0, e0] of ranges) {
    let s = s0;
    let e = e0;
    if (trim) {
      while (s < e && isSpace(text.charCodeAt(s))) s++;
      while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    }
    if (s === e || isBlank(text, s, e)) continue;
    const last = kept[kept.length - 1];
    if (last && e <= last[1]) continue;
    // A range that starts no later than the previous one but reaches further replaces it.
    if (last && s <= last[0]) kept.pop();
    kept.push([s, e]);
  }
  return kept.map(([start, end], index) => ({ index, text: text.slice(start, end), start, end }));
}
