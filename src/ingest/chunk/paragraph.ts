/** The `paragraph` strategy: whole paragraphs, packed. */
import type { Chunk } from "../types";
import { lines, paragraphs, sentences, words } from "./boundaries";
import { splitByLevels } from "./pack";
import { toChunks, type Range } from "./spans";

// A paragraph is what blank lines separate; inside one, sentence ends come before the
// single line breaks of soft-wrapped text.
const LEVELS = [paragraphs, sentences, lines, words];

/**
 * Packs paragraphs (separated by blank lines) into chunks of at most `size` characters,
 * repeating at most `overlap` characters of whole paragraphs. A paragraph longer than
 * `size` is split at sentence ends, then line breaks, spaces and characters.
 *
 * @example chunkParagraph(doc, 1500, 0)
 */
export function chunkParagraph(text: string, size: number, overlap: number): Chunk[] {
  const ranges: Range[] = [];
  splitByLevels(text, 0, text.length, LEVELS, size, overlap, ranges);
  return toChunks(text, ranges);
}
