/**
 * The door to chunking: one function for every strategy. Each strategy lives in its own
 * file; they share offset helpers (spans.ts), the packing engine (pack.ts) and the
 * boundaries they cut at (boundaries.ts).
 */
import type { Chunk, ChunkingStrategy, ChunkOptions } from "../types";
import { chunkFixed } from "./fixed";
import { chunkMarkdown } from "./markdown";
import { chunkParagraph } from "./paragraph";
import { chunkRecursive } from "./recursive";
import { chunkSentence } from "./sentence";
import { chunkToken } from "./token";

export { countTokens } from "./token";

const STRATEGIES: Record<ChunkingStrategy, (text: string, size: number, overlap: number) => Chunk[]> = {
  recursive: chunkRecursive,
  fixed: chunkFixed,
  sentence: chunkSentence,
  paragraph: chunkParagraph,
  markdown: chunkMarkdown,
  token: chunkToken,
};

/**
 * Splits extracted text into chunks with the chosen strategy. Every chunk satisfies
 * chunk.text === text.slice(chunk.start, chunk.end), holds at most `size` characters
 * (tokens for `token`), repeats at most `overlap` of the previous chunk and is never
 * whitespace-only; together the chunks cover every non-whitespace character.
 * Whitespace-only text gives []. Throws RangeError for an unknown strategy or when
 * size and overlap are not integers with 0 <= overlap < size.
 *
 * @example chunkText(text, { strategy: "recursive", size: 1000, overlap: 200 })
 */
export function chunkText(text: string, opts: ChunkOptions): Chunk[] {
  const { strategy, size, overlap } = opts;
  const chunker = Object.hasOwn(STRATEGIES, strategy) ? STRATEGIES[strategy] : undefined;
  if (!chunker) throw new RangeError(`unknown chunking strategy "${strategy}"`);
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`chunk overlap must be an integer from 0 to size - 1 (${size - 1}), got ${overlap}`);
  }
  if (text.trim() === "") return [];
  return chunker(text, size, overlap);
}
