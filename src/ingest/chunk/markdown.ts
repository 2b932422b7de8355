/** The `markdown` strategy: sections under headings, then blocks, then recursive. */
import type { Chunk } from "../types";
import { lines, sentences, words } from "./boundaries";
import { splitByLevels, type Splitter } from "./pack";
import { isBlank, toChunks, type Range } from "./spans";

const HEADING = / {0,3}#{1,6}(?=[ \t\r\n]|$)/y;
const FENCE = / {0,3}(`{3,}|~{3,})/y;

/** Calls `visit` with each line's [start, end) in text[start, end), line break included. */
function eachLine(text: string, start: number, end: number, visit: (ls: number, le: number) => void): void {
  for (let ls = start; ls < end; ) {
    const nl = text.indexOf("\n", ls);
    const le = nl === -1 || nl >= end ? end : nl + 1;
    visit(ls, le);
    ls = le;
  }
}

/** Tracks fenced code blocks line by line; `step` says whether the line is code. */
function fenceTracker(text: string) {
  let open: string | null = null;
  return function step(ls: number): "open" | "close" | "code" | "text" {
    FENCE.lastIndex = ls;
    const m = FENCE.exec(text);
    if (open === null) {
      if (!m) return "text";
      open = m[1];
      return "open";
    }
    // A closing fence uses the same character, is at least as long, and has no info string.
    if (m && m[1][0] === open[0] && m[1].length >= open.length && isBlank(text, FENCE.lastIndex, lineEnd(text, ls))) {
      open = null;
      return "close";
    }
    return "code";
  };
}

function lineEnd(text: string, ls: number): number {
  const nl = text.indexOf("\n", ls);
  return nl === -1 ? text.length : nl;
}

/** Cuts before each ATX heading (# .. ######) outside code fences: one piece per section. */
const sections: Splitter = (text, start, end) => {
  const cuts: number[] = [];
  const step = fenceTracker(text);
  eachLine(text, start, end, (ls) => {
    if (step(ls) !== "text") return;
    HEADING.lastIndex = ls;
    if (ls > start && HEADING.test(text)) cuts.push(ls);
  });
  return cuts;
};

/**
 * Cuts between blocks: before a line that follows a blank line, and around fenced code
 * blocks. Never inside a fence, and never right after a heading, so a heading stays
 * with the block it introduces.
 */
const blocks: Splitter = (text, start, end) => {
  const cuts: number[] = [];
  const step = fenceTracker(text);
  let afterBlank = false;
  let afterHeading = false;
  let afterFence = false;
  eachLine(text, start, end, (ls, le) => {
    const kind = step(ls);
    const blank = kind === "text" && isBlank(text, ls, le);
    const boundary = kind === "open" || (kind === "text" && !blank && (afterBlank || afterFence));
    if (ls > start && boundary && !afterHeading) cuts.push(ls);
    afterFence = kind === "close" || (afterFence && blank);
    afterBlank = blank;
    if (!blank) {
      HEADING.lastIndex = ls;
      afterHeading = kind === "text" && HEADING.test(text);
    }
  });
  return cuts;
};

const LEVELS = [sections, blocks, lines, sentences, words];

/**
 * Splits Markdown at headings first, keeping each heading with its section, then at
 * blank lines and around fenced code blocks (never inside one unless the block alone is
 * longer than `size`), then as `recursive` does. At most `size` characters per chunk,
 * at most `overlap` repeated.
 *
 * @example chunkMarkdown(readme, 1000, 100)
 */
export function chunkMarkdown(text: string, size: number, overlap: number): Chunk[] {
  const ranges: Range[] = [];
  splitByLevels(text, 0, text.length, LEVELS, size, overlap, ranges);
  return toChunks(text, ranges);
}
