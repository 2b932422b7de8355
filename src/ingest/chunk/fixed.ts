/** The `fixed` strategy: fixed-size character windows. */
import type { Chunk } from "../types";
import { isPairMiddle, isSpace, safeCut, toChunks, type Range } from "./spans";

// How far back from a window's end we look for a space, so as not to cut a word.
const MAX_WORD_SLACK = 32;

/**
 * Windows of `size` characters, each starting `overlap` characters before the previous
 * one ended, so consecutive chunks overlap by exactly `overlap` (one less where that
 * would split a surrogate pair). A window ends just after a space when one lies within
 * the last quarter of the window (at most 32 characters), so words are rarely cut.
 * Whitespace is kept at the edges, to keep the overlap exact; whitespace-only windows
 * are skipped.
 *
 * @example chunkFixed(doc, 512, 64)
 */
export function chunkFixed(text: string, size: number, overlap: number): Chunk[] {
  const ranges: Range[] = [];
  const n = text.length;
  let s = 0;
  for (;;) {
    let e = Math.min(n, s + size);
    if (e < n) e = windowEnd(text, s, e, overlap, size);
    ranges.push([s, e]);
    if (e >= n) break;
    let next = Math.max(e - overlap, s + 1);
    if (isPairMiddle(text, next)) next++;
    s = next;
  }
  return toChunks(text, ranges, false);
}

/** Where a window from s should end, given its longest end e < text.length. */
function windowEnd(text: string, s: number, e: number, overlap: number, size: number): number {
  // The next window starts at end - overlap, which must stay after s.
  const lowest = Math.max(s + overlap + 1, e - Math.min(MAX_WORD_SLACK, Math.floor(size / 4)));
  let end = e;
  if (!isSpace(text.charCodeAt(e - 1)) && !isSpace(text.charCodeAt(e))) {
    for (let q = e - 1; q >= lowest; q--) {
      if (isSpace(text.charCodeAt(q - 1))) {
        end = q;
        break;
      }
    }
  }
  // Keep both this end and the next start off the middle of a surrogate pair if we can.
  if ((isPairMiddle(text, end) || isPairMiddle(text, end - overlap)) && end - 1 > s + overlap) {
    if (!isPairMiddle(text, end - 1) && !isPairMiddle(text, end - 1 - overlap)) return end - 1;
  }
  const safe = safeCut(text, end);
  return safe > s ? safe : Math.min(text.length, s + 2);
}
