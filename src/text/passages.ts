/**
 * Passages of a chunk in another language than the chunk's own, for `auto` pipelines: a
 * manual translated in part interleaves its languages within one chunk (a Finnish
 * heading and paragraph between English ones, an English paragraph left in a French
 * page), and the chunk's language is detected from its first words (detect.ts). Words
 * stemmed in the wrong language are found by no query in theirs: on GNOME's Finnish help,
 * where half the pages are like that, 47 of 258 titles found their page with the whole
 * text stemmed as Finnish and not under `auto` (docs/notes/2026-12-07-passages.md).
 *
 * Detecting every sentence would cost English ingestion several detections a chunk, so a
 * cheap sign chooses what to detect: the share of English stop words in each window of
 * WINDOW words. English prose has a quarter or more (1 window in 90 of GNOME's English
 * help has under a tenth; German has under a tenth in 19 of 20), so a window of an
 * English chunk with few of them, or one of another language's chunk with many, may be in
 * another language; each run of such windows is detected on its own, and its words take
 * the language found when detection is sure of one.
 */
import { chunkLanguage } from "./detect";
import { STEMMERS } from "./languages";
import { isEnglishStopWord } from "./terms";

/** Words `from` (included) to `to` (excluded) of a chunk's Latin words, in `language`. */
export interface Passage {
  from: number;
  to: number;
  language: string;
}

/** Words a window starts after the one before: half a window, so a paragraph of a window's length is met whole. */
const STRIDE = 6;
/** Words of a window whose English stop words are counted. */
const WINDOW = 2 * STRIDE;
/** Fewer stop words than this in a window of an English chunk: perhaps another language. */
const FEW_IN_ENGLISH = 2;
/** At least this many in a window of another language's chunk: perhaps English. */
const MANY_IN_OTHER = 4;
/** More numbers than this in a window: a table, not prose (one of package sizes reads as Danish or Italian). */
const MAX_NUMBERS = WINDOW / 4;
const NO_PASSAGES: readonly Passage[] = Object.freeze([]);
/** Chunks of fewer Latin words than this have no passages. */
export const PASSAGE_MIN_WORDS = 2 * WINDOW;

/**
 * Which of a chunk's Latin words (lower-cased) are English stop words, 1 for each. An
 * English chunk's analysis marks the words its English terms leave out as it makes them;
 * another language's words are looked up in the list as written here, not stemmed as
 * English (which would fill the term cache with English stems of German words).
 */
export function englishStops(words: readonly string[]): Uint8Array {
  const stops = new Uint8Array(words.length);
  for (let i = 0; i < words.length; i++) if (isEnglishStopWord(words[i]!)) stops[i] = 1;
  return stops;
}

/**
 * The passages of a chunk's Latin words (lower-cased, in order) in another language than
 * `language`, the chunk's, in order and apart, given which of them English drops
 * (englishStops); none for a chunk of under two windows or of no sure language.
 */
export function passages(words: readonly string[], language: string | null, stopFlags: Uint8Array): readonly Passage[] {
  if (language === null || words.length < PASSAGE_MIN_WORDS) return NO_PASSAGES;
  const english = language === "en";
  let out: Passage[] | null = null;
  let from = -1;
  const end = (to: number) => {
    const floor = out?.at(-1)?.to ?? 0;
    // A window that holds the edge of a paragraph in another language holds English stop
    // words too: the run reaches on to the English stop words around it.
    [from, to] = english ? widened(stopFlags, floor, from, to) : [Math.max(floor, from), to];
    const found = chunkLanguage(words.slice(from, to) as string[]);
    // Only a language the index stems: a run of gene names may read as Tagalog, and unstemmed it would find less.
    if (found !== null && found !== language && found in STEMMERS) (out ??= []).push({ from, to, language: found });
    from = -1;
  };
  let last = 0;
  let stopsBefore = 0;
  let numbersBefore = 0;
  for (let half = 0; half + STRIDE <= words.length; half += STRIDE) {
    let stops = 0;
    let numbers = 0;
    for (let j = half; j < half + STRIDE; j++) {
      if (stopFlags[j]) stops++;
      else if (isDigit(words[j]!.charCodeAt(0))) numbers++;
    }
    // The window of the half before and this one.
    const i = half - STRIDE;
    const other =
      i >= 0 &&
      numbersBefore + numbers <= MAX_NUMBERS &&
      (english ? stopsBefore + stops < FEW_IN_ENGLISH : stopsBefore + stops >= MANY_IN_OTHER);
    if (other && from < 0) from = i;
    else if (!other && from >= 0) end(last);
    if (other) last = i + WINDOW;
    stopsBefore = stops;
    numbersBefore = numbers;
  }
  // A run still open holds the last window: the words after it (fewer than STRIDE) go with it.
  if (from >= 0) end(words.length);
  return out ?? NO_PASSAGES;
}

/** A run of an English chunk's words, reaching back (not before `floor`) and on up to STRIDE words each way, to English stop words. */
function widened(stops: Uint8Array, floor: number, from: number, to: number): [number, number] {
  from = Math.max(floor, from);
  const low = Math.max(floor, from - STRIDE);
  while (from > low && !stops[from - 1]) from--;
  const high = Math.min(stops.length, to + STRIDE);
  while (to < high && !stops[to]) to++;
  return [from, to];
}

/** The language of each word in turn, asked in order: its passage's, else the chunk's. */
export class PassageCursor {
  private next = 0;

  constructor(
    private readonly parts: readonly Passage[],
    private readonly language: string | null,
  ) {}

  at(i: number): string | null {
    const parts = this.parts;
    while (this.next < parts.length && i >= parts[this.next]!.to) this.next++;
    const part = parts[this.next];
    return part !== undefined && i >= part.from ? part.language : this.language;
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;
