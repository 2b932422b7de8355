/** The `token` strategy: chunks measured in cl100k_base tokens, cut at token pieces. */
import cl100k from "js-tiktoken/ranks/cl100k_base";
import type { Chunk } from "../types";
import { countTokens } from "./bpe";
import { packPieces } from "./pack";
import { isBlank, safeCut, toChunks, type Range } from "./spans";

export { countTokens };

// Long pre-token pieces (a huge word, a run of symbols) are cut into parts of this many
// characters, so that a chunk boundary can fall inside them.
const PART = 32;

/** Cuts text into the tokenizer's pre-token pieces, splitting long ones into parts. */
function tokenUnits(text: string): number[] {
  const bounds = [0];
  for (const m of text.matchAll(new RegExp(cl100k.pat_str, "gu"))) {
    const end = m.index + m[0].length;
    for (let s = m.index; s < end; ) {
      const e = s + PART >= end ? end : safeCut(text, s + PART);
      bounds.push(e);
      s = e;
    }
  }
  if (bounds[bounds.length - 1] !== text.length) bounds.push(text.length);
  return bounds;
}

/** Token counts of the units, halving any unit that alone weighs more than `size` tokens. */
function weighUnits(text: string, units: number[], size: number): { bounds: number[]; weights: number[] } {
  const bounds = [0];
  const weights: number[] = [];
  const visit = (s: number, e: number) => {
    const c = countTokens(text.slice(s, e));
    const mid = safeCut(text, s + Math.floor((e - s) / 2));
    if (c <= size || mid <= s) {
      bounds.push(e);
      weights.push(c);
    } else {
      visit(s, mid);
      visit(mid, e);
    }
  };
  for (let i = 0; i + 1 < units.length; i++) visit(units[i], units[i + 1]);
  return { bounds, weights };
}

/**
 * Packs tokenizer pieces into chunks of at most `size` tokens, repeating at most
 * `overlap` tokens; offsets are still characters. Each chunk and each overlap is checked
 * by encoding it, because pieces measured apart can tokenize differently together.
 * A chunk may begin with the one space the tokenizer attaches to its first word.
 *
 * @example chunkToken(doc, 256, 32)
 */
export function chunkToken(text: string, size: number, overlap: number): Chunk[] {
  const { bounds, weights } = weighUnits(text, tokenUnits(text), size);
  const ranges: Range[] = [];
  packPieces(
    {
      bounds,
      weight: (i) => weights[i],
      blank: (i) => isBlank(text, bounds[i], bounds[i + 1]),
      fits: (s, e, limit) => countTokens(text.slice(s, e)) <= limit,
    },
    size,
    overlap,
    ranges,
  );
  return toChunks(text, ranges, false);
}
