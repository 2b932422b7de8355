/**
 * The engine behind the splitting strategies: cut a range at the strongest boundaries
 * that exist (paragraphs before lines before sentences ...), then greedily pack the
 * pieces into windows, repeating a tail of each window at the start of the next.
 */
import { hardSplit, isBlank, type Range } from "./spans";

/** Returns cut positions strictly inside (start, end), ascending. */
export type Splitter = (text: string, start: number, end: number) => number[];

/** Consecutive pieces: piece i is bounds[i]..bounds[i + 1]. */
export interface Pieces {
  bounds: number[];
  /** Cost of piece i against the size limit (characters or tokens). */
  weight(i: number): number;
  /** Whether piece i holds only whitespace; a window never starts or ends on one. */
  blank(i: number): boolean;
  /** Optional exact check of a range against a limit, for units whose weights do not add up. */
  fits?(start: number, end: number, limit: number): boolean;
}

/**
 * Packs pieces into windows of at most `size` weight. Each next window starts as far
 * back as possible while repeating at most `overlap` weight and still leaving room
 * for the piece that did not fit. Every piece must weigh at most `size` on its own.
 */
export function packPieces(p: Pieces, size: number, overlap: number, out: Range[]): void {
  const n = p.bounds.length - 1;
  const skipBlank = (k: number) => {
    while (k < n && p.blank(k)) k++;
    return k;
  };
  let i = skipBlank(0);
  while (i < n) {
    const j = windowEnd(p, i, n, size);
    out.push([p.bounds[i], p.bounds[j]]);
    const following = skipBlank(j);
    if (following >= n) return;
    const k = overlapStart(p, i, j, following, size, overlap);
    i = k < j ? skipBlank(k) : following;
    if (i >= j) i = following;
  }
}

/** The end (exclusive piece index) of the window starting at piece i. */
function windowEnd(p: Pieces, i: number, n: number, size: number): number {
  let j = i;
  let sum = 0;
  while (j < n && sum + p.weight(j) <= size) sum += p.weight(j++);
  if (j === i) j = i + 1;
  for (;;) {
    while (j - 1 > i && p.blank(j - 1)) j--;
    if (!p.fits || j - 1 === i || p.fits(p.bounds[i], p.bounds[j], size)) return j;
    j--;
  }
}

/** Where the next window starts: a tail of [i, j) weighing at most `overlap`. */
function overlapStart(p: Pieces, i: number, j: number, following: number, size: number, overlap: number): number {
  let gap = 0;
  for (let g = j; g <= following; g++) gap += p.weight(g);
  let k = j;
  let kept = 0;
  // k - 1 > i keeps the next start strictly after this one.
  while (k - 1 > i && kept + p.weight(k - 1) <= overlap && kept + p.weight(k - 1) + gap <= size) {
    kept += p.weight(--k);
  }
  while (p.fits && k < j && !p.fits(p.bounds[k], p.bounds[j], overlap)) k++;
  return k;
}

/** Character pieces over `bounds`, weighed by length. */
export function charPieces(text: string, bounds: number[]): Pieces {
  return {
    bounds,
    weight: (i) => bounds[i + 1] - bounds[i],
    blank: (i) => isBlank(text, bounds[i], bounds[i + 1]),
  };
}

/**
 * LangChain-style recursive splitting of text[start, end): cut with the first splitter
 * that finds cuts; pack runs of pieces that fit; split oversized pieces again with the
 * splitters that follow, and hard-split what no splitter can cut.
 */
export function splitByLevels(
  text: string,
  start: number,
  end: number,
  levels: Splitter[],
  size: number,
  overlap: number,
  out: Range[],
  level = 0,
): void {
  if (end - start <= size) {
    out.push([start, end]);
    return;
  }
  if (level >= levels.length) {
    hardSplit(text, start, end, size, overlap, out);
    return;
  }
  const cuts = levels[level](text, start, end);
  if (cuts.length === 0) {
    splitByLevels(text, start, end, levels, size, overlap, out, level + 1);
    return;
  }
  const bounds = [start, ...cuts, end];
  let run = 0;
  for (let q = 0; q < bounds.length - 1; q++) {
    if (bounds[q + 1] - bounds[q] <= size) continue;
    if (q > run) packPieces(charPieces(text, bounds.slice(run, q + 1)), size, overlap, out);
    splitByLevels(text, bounds[q], bounds[q + 1], levels, size, overlap, out, level + 1);
    run = q + 1;
  }
  if (run < bounds.length - 1) packPieces(charPieces(text, bounds.slice(run)), size, overlap, out);
}

/** A splitter that cuts after every match of `pattern` (which must use the g flag). */
export function cutAfter(pattern: RegExp): Splitter {
  return (text, start, end) => {
    // Search a slice so a range without matches never scans the rest of the document.
    const part = text.slice(start, end);
    const cuts: number[] = [];
    pattern.lastIndex = 0;
    for (let m = pattern.exec(part); m; m = pattern.exec(part)) {
      if (m[0].length === 0) pattern.lastIndex++;
      const cut = start + m.index + m[0].length;
      if (cut > start && cut < end && cut !== cuts[cuts.length - 1]) cuts.push(cut);
    }
    return cuts;
  };
}
