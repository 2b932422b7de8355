/**
 * One word as the index keeps it, and its sub-word units. Both sides of a search go
 * through here: chunks at ingestion, queries at search time.
 */
import { STEMMERS } from "./languages";
import { cjkRuns, type Script } from "./words";

/**
 * English stop words, as LanceDB's English index has them (153, its list without the
 * forms with an apostrophe, which its tokenizer splits): it drops a word whose stem is one
 * of them (`having` → `have`, but `does` → `doe` stays), and so does ragd (indexTerm), so an
 * English pipeline ranks as a `legacy` one (test/english-stems.test.ts holds the two alike).
 */
const ENGLISH_STOP = new Set(
  (
    "a about above after again against ain all am an and any are aren as at be because been before being " +
    "below between both but by can couldn d did didn do does doesn doing don down during each few for " +
    "from further had hadn has hasn have haven having he her here hers herself him himself his how i if " +
    "in into is isn it its itself just ll m ma me mightn more most mustn my myself needn no nor not now " +
    "o of off on once only or other our ours ourselves out over own re s same shan she should shouldn so " +
    "some such t than that the their theirs them themselves then there these they this those through to " +
    "too under until up ve very was wasn we were weren what when where which while who whom why will " +
    "with won wouldn y you your yours yourself yourselves"
  ).split(" "),
);

/** True for a lower-cased word of the English stop-word list as written (passages.ts, in chunks of another language). */
export function isEnglishStopWord(lower: string): boolean {
  return ENGLISH_STOP.has(lower);
}

/** Scripts whose letters fold (case, accents): the alphabetic ones. Others' marks are part of their letters. */
const FOLDING: ReadonlySet<Script> = new Set(["latin", "cyrillic", "greek"]);

/** Letters NFKD leaves whole that ASCII folding spells out. */
const SPELLED: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ł: "l", þ: "th", ð: "d", ı: "i" };

/**
 * Index terms already made, by language then word, null for a word the index leaves out:
 * most words of a text were met before. One look-up a word, in objects without a prototype
 * rather than Maps: the terms of SciFact's 1.2 M words (35,734 distinct) take a fifth less
 * CPU than with a stop-word Set and a Map of Maps (docs/notes/2026-12-06-languages-figures.md).
 */
let cache: Record<string, Record<string, string | null>> = Object.create(null);
let cached = 0;
const CACHE_LIMIT = 100_000;

/** A lower-cased word as the index keeps it in `language`: its term (termOf), or null for a stop word. */
export function indexTerm(lower: string, script: Script, language: string | null): string | null {
  const stem = language ? STEMMERS[language] : undefined;
  if (!stem) return FOLDING.has(script) ? fold(lower) : lower;
  // A word's script follows from its letters, so the word and language alone name its term.
  const terms = cache[language!] ?? newTerms(language!);
  const found = terms[lower];
  if (found !== undefined) return found;
  // As LanceDB's English index: stemmed first, then a stem that is a stop word dropped (`does` → `doe` stays).
  const stemmedWord = stemmed(stem, lower, script);
  const term = isStopWord(stemmedWord, language) ? null : stemmedWord;
  if (cached >= CACHE_LIMIT) {
    cache = Object.create(null);
    cached = 0;
  }
  (cache[language!] ?? newTerms(language!))[lower] = term;
  cached++;
  return term;
}

/** A lower-cased word's stem in `language` (unchanged without one), case and accents folded as its script folds. */
export function termOf(lower: string, script: Script, language: string | null): string {
  const term = indexTerm(lower, script, language);
  // A stop word's stem is asked for only as another language's form of a query word: not kept.
  return term ?? stemmed(STEMMERS[language!]!, lower, script);
}

/** True for a word the index leaves out in `language`. */
function isStopWord(lower: string, language: string | null): boolean {
  return language === "en" && ENGLISH_STOP.has(lower);
}

function stemmed(stem: (word: string) => string, lower: string, script: Script): string {
  const word = stemSafely(stem, lower);
  return FOLDING.has(script) ? fold(word) : word;
}

function newTerms(language: string): Record<string, string | null> {
  const terms: Record<string, string | null> = Object.create(null);
  cache[language] = terms;
  return terms;
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

/**
 * The character pairs of a text's Han and kana runs, space-separated: grams of the index
 * and of the built-in embedder alike, made once a chunk and joined once.
 */
export function runPairs(text: string): string {
  const out: string[] = [];
  for (const run of cjkRuns(text)) bigrams(run, out);
  return out.join(" ");
}

/** Grams (none of them empty) followed by a text's run pairs, as one space-separated string. */
export function withPairs(grams: string[], pairs: string): string {
  if (!grams.length) return pairs;
  return pairs ? `${grams.join(" ")} ${pairs}` : grams.join(" ");
}

/** Words at least this long get trigrams: the parts of compounds (`Krankenversicherung` in `…gesetz`). */
export const TRIGRAM_MIN = 6;

/** Runs of three neighbouring characters of a folded word. */
export function trigrams(word: string, out: string[]): void {
  const chars: ArrayLike<string> = SURROGATE.test(word) ? Array.from(word) : word;
  for (let i = 0; i + 2 < chars.length; i++) out.push(chars[i]! + chars[i + 1]! + chars[i + 2]!);
}
