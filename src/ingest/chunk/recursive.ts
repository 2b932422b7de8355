/** The `recursive` strategy: LangChain's recursive character splitter, on offsets. */
import type { Chunk } from "../types";
import { lines, paragraphs, sentences, words } from "./boundaries";
import { splitByLevels } from "./pack";
import { toChunks, type Range } from "./spans";

const LEVELS = [paragraphs, lines, sentences, words];

/**
 * Splits at paragraph breaks, then line breaks, sentence ends, spaces and finally
 * characters, only going finer where a piece is still longer than `size`; pieces are
 * merged up to `size` characters with at most `overlap` characters repeated.
 *
 * @example chunkRecursive(doc, 1000, 200)
 */
export function chunkRecursive(text: string, size: number, overlap: number): Chunk[] {
  const ranges: Range[] = [];
  splitByLevels(text, 0, text.length, LEVELS, size, overlap, ranges);
  return toChunks(text, ranges);
}
