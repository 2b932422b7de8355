/**
 * Which language a run of alphabetic words is in, for `auto` pipelines: `eld` with its
 * static `extrasmall` data, inside the executable. On 1,207 paragraphs and 1,100 page
 * titles of 12 languages it is as right as the `small` data (0.777 against 0.778, and
 * 0.897 against 0.910), and its tables would hold 27 MB of each thread's heap where
 * `small`'s hold 47 (docs/languages.md); the executable reads them packed (eld-tables.ts).
 * Han, kana, Hangul and the unspaced scripts need no guess: their script names them.
 */
import { eld } from "./eld";
import { STEMMERS } from "./languages";
import type { Script } from "./words";

/** Characters of a chunk's words that detection reads: enough to be sure, cheap on long chunks. */
const SAMPLE = 200;
/** A query is stemmed in every language scoring this close to the best one. */
const NEAR = 0.9;
/** At most this many languages' stems of one query word. */
const MAX_GUESSES = 3;

/** The language of a chunk's words of one script, or null when unsure (they are then left unstemmed). */
export function chunkLanguage(words: string[]): string | null {
  const found = eld.detect(sample(words));
  return found.language && found.isReliable() ? found.language : null;
}

/**
 * The languages of one document's chunks. Each chunk's words of a script are detected on
 * their own, as a chunk without a document is: a manual translated in part (a Finnish
 * introduction over an English body, chapters still in English) has chunks of each
 * language, and a chunk stemmed as its document's first language would miss the queries
 * in its own. A chunk with fewer than FEW_WORDS words of a script (a word or two of Latin
 * text in Japanese prose; a table of names), or one detection is not sure of, takes the
 * language the document's last sure chunk of at least FEW_WORDS such words had, among its
 * chunks written mainly in the same script: an English code listing in a Japanese manual
 * does not decide the language of the Latin words in its Japanese prose. Lacking one, it
 * is detected on its own, and not remembered: on a few words detection errs.
 */
export class DocumentLanguages {
  /** By `<main script>/<script>`. */
  private readonly found = new Map<string, string>();

  /** The language of a chunk's words of `script`; `main`, the script most of its letters are in. */
  of(words: string[], script: Script, main: Script): string | null {
    const n = wordCount(words);
    if (n === 0) return null;
    const key = `${main}/${script}`;
    const known = this.found.get(key) ?? null;
    if (n < FEW_WORDS) return known ?? chunkLanguage(words);
    const language = chunkLanguage(words);
    if (language === null) return known;
    this.found.set(key, language);
    return language;
  }
}

/** Words of a script below which a chunk takes its document's language for them rather than its own. */
const FEW_WORDS = 8;

/** The words that are not numbers (detection reads no numbers: sample()), counted up to FEW_WORDS. */
function wordCount(words: string[]): number {
  let n = 0;
  for (const w of words) if (!NUMBER.test(w) && ++n >= FEW_WORDS) break;
  return n;
}

/** The languages a short or uncertain query of a script is stemmed in too: the most written. */
const FALLBACK: Partial<Record<Script, string[]>> = {
  latin: ["en", "de", "fr", "es", "it", "pt", "nl"],
  cyrillic: ["ru", "uk", "bg"],
};

/**
 * The languages a query's words of one script may be in, best first: the best guess
 * alone when detection is sure and the query has at least four words; else every
 * language scoring near the best and the script's most written ones (a short query is
 * little evidence: `capitals` scores Catalan first and English a hair behind, `Brahms`
 * nothing, `+Brahms -sonata` Italian). Only languages with a stemmer count.
 */
export function queryLanguages(words: string[], script: Script): string[] {
  const found = eld.detect(sample(words));
  if (found.language && found.isReliable() && words.length >= 4)
    return found.language in STEMMERS ? [found.language] : [];
  const scores = Object.entries(found.getScores()).sort((a, b) => b[1] - a[1]);
  const best = scores[0]?.[1] ?? 0;
  const near = scores
    .filter(([code, score]) => score >= best * NEAR && code in STEMMERS)
    .slice(0, MAX_GUESSES)
    .map(([code]) => code);
  return [...new Set([...near, ...(FALLBACK[script] ?? [])])];
}

/** The first words, numbers left out, up to SAMPLE characters: all that detection reads. */
function sample(words: string[]): string {
  let out = "";
  for (const w of words) {
    if (out.length >= SAMPLE) break;
    if (NUMBER.test(w)) continue;
    out += out ? ` ${w}` : w;
  }
  return out;
}

const NUMBER = /^\p{N}+$/u;
