/**
 * One word as the index keeps it, and its sub-word units. Both sides of a search go
 * through here: chunks at ingestion, queries at search time.
 */
import { STEMMERS } from "./languages";
import type { Script } from "./words";

/**
 * English stop words: the 126 LanceDB's English index drops (its `tokenize` on an index with
 * stop words on, read word by word), so an English pipeline ranks as it did before languages.
 */
const ENGLISH_STOP = new Set(
  (
    "a about above after again against all am an and any are aren as at be because been before being below between " +
    "both but by can couldn d did didn do does doesn doing don down during each few for from further had has have " +
    "having here his how i if in into is isn it its itself just ll m more most my no nor not now of off on once only " +
    "or other our out over own re s same should shouldn so some such t than that the their them themselves then " +
    "there these they this those through to too under until up ve very was wasn we were what when where which while " +
    "who why will with won you your yours yourself"
  ).split(" "),
);

/** Scripts whose letters fold (case, accents): the alphabetic ones. Others' marks are part of their letters. */
const FOLDING: ReadonlySet<Script> = new Set(["latin", "cyrillic", "greek"]);

/** Letters NFKD leaves whole that ASCII folding spells out. */
const SPELLED: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ł: "l", þ: "th", ð: "d", ı: "i" };

/** Terms already made, by language then word: most words of a text were met before. */
const cache = new Map<string, Map<string, string>>();
let cached = 0;
const CACHE_LIMIT = 100_000;

/** True for a word the index leaves out in `language`. */
export function isStopWord(lower: string, language: string | null): boolean {
  return language === "en" && ENGLISH_STOP.has(lower);
}

/** A lower-cased word's stem in `language` (unchanged without one), case and accents folded as its script folds. */
export function termOf(lower: string, script: Script, language: string | null): string {
  const stem = language ? STEMMERS[language] : undefined;
  if (!stem) return FOLDING.has(script) ? fold(lower) : lower;
  // A word's script follows from its letters, so the word and language alone name its term.
  let terms = cache.get(language!);
  const found = terms?.get(lower);
  if (found !== undefined) return found;
  if (cached >= CACHE_LIMIT) {
    cache.clear();
    cached = 0;
    terms = undefined;
  }
  if (!terms) cache.set(language!, (terms = new Map()));
  const stemmed = stemSafely(stem, lower);
  const term = FOLDING.has(script) ? fold(stemmed) : stemmed;
  terms.set(lower, term);
  cached++;
  return term;
}

/**
 * A stemmer's answer, or the word itself when the stemmer throws: the Bulgarian one writes
 * into its string (`прокси`, `зимен`), which strict code refuses, and a short Cyrillic
 * query is stemmed as Bulgarian too (detect.ts), so one such word failed the whole search.
 */
function stemSafely(stem: (word: string) => string, lower: string): string {
  try {
    return stem(lower);
  } catch {
    return lower;
  }
}

/** Accents off and ligatures spelled out, as ASCII folding does. */
export function fold(word: string): string {
  if (/^[ -~]*$/.test(word)) return word; // printable ASCII: nothing to fold
  return word
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[ßæœøđłþðı]/g, (c) => SPELLED[c]!);
}

/** Any half of a surrogate pair: a character outside the Basic Multilingual Plane (rare Han, emoji). */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Pairs of neighbouring characters; a single character stands for itself. */
export function bigrams(run: string, out: string[]): void {
  // Counted in UTF-16 units where each is a character: the common case, without a copy of the run.
  const chars: ArrayLike<string> = SURROGATE.test(run) ? Array.from(run) : run;
  if (chars.length === 1) out.push(chars[0]!);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

/** Words at least this long get trigrams: the parts of compounds (`Krankenversicherung` in `…gesetz`). */
export const TRIGRAM_MIN = 6;

/** Runs of three neighbouring characters of a folded word. */
export function trigrams(word: string, out: string[]): void {
  const chars: ArrayLike<string> = SURROGATE.test(word) ? Array.from(word) : word;
  for (let i = 0; i + 2 < chars.length; i++) out.push(chars[i]! + chars[i + 1]! + chars[i + 2]!);
}
