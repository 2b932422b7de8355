/** The `sentence` strategy: whole sentences, packed. */
import type { Chunk } from "../types";
import { sentences, words } from "./boundaries";
import { splitByLevels } from "./pack";
import { toChunks, type Range } from "./spans";

const LEVELS = [sentences, words];

/**
 * Packs whole sentences into chunks of at most `size` characters, repeating at most
 * `overlap` characters of whole sentences. A sentence longer than `size` is split at
 * spaces, then characters.
 *
 * @example chunkSentence(doc, 800, 100)
 */
export function chunkSentence(text: string, size: number, overlap: number): Chunk[] {
  const ranges: Range[] = [];
  splitByLevels(text, 0, text.length, LEVELS, size, overlap, ranges);
  return toChunks(text, ranges);
}
