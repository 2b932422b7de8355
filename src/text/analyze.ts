/**
 * Text analysis: what a chunk is indexed as, and what a query searches for, under a
 * pipeline's `language` setting (docs/languages.md). A chunk becomes two strings of
 * space-separated terms, written beside its text and indexed as they are (LanceDB's
 * `whitespace` tokenizer, nothing language-specific there):
 *
 * - `terms`: its words, lower-cased, each stemmed in its language, accents folded; English
 *   stop words dropped. Words of unspaced scripts come from the word breaker (words.ts).
 * - `grams`: sub-word units that find what whole words miss: character bigrams over Han
 *   and kana runs (a name the dictionary lacks), syllable bigrams of Korean words (`한강`
 *   in `한강이`), trigrams of long words outside English (`Krankenversicherung` in
 *   `Krankenversicherungsgesetz`). English chunks have none, so English ranks as before.
 *
 * Each script's words get their own language: under `auto`, detected (detect.ts); under
 * a fixed language, that language for the words of its script, none for the others. So
 * English comments in Japanese text are English words.
 */
import { embeddingTextOf } from "./embedding-text";
import { AUTO } from "./languages";
import { chunkLanguage, type DocumentLanguages, queryLanguages } from "./detect";
import { englishStops, PASSAGE_MIN_WORDS, type Passage, PassageCursor, passages } from "./passages";
import { bigrams, indexTerm, runPairs, termOf, TRIGRAM_MIN, trigrams, withPairs } from "./terms";
import { hasKana, type Script, type Word, wordsOf } from "./words";

export interface ChunkAnalysis {
  terms: string;
  grams: string;
}

export interface QueryAnalysis {
  /** The query's terms: each word stemmed in the language the query is most likely in. */
  terms: string;
  /**
   * The same words' other forms: their stems in the other languages a short or unsure
   * query may be in, and the plain word. They match at a lower weight, so a query whose
   * language was guessed wrong still finds its text, and one guessed right ranks as it would.
   */
  variants: string;
  variantBoost: number;
  grams: string;
  /** Weight of the grams' match beside the terms'. */
  gramBoost: number;
  /**
   * The query's distinct terms (stop words out): what BM25 sums are divided by. Words that
   * share a term (`running runs`) count once, as the terms clause scores that term once.
   */
  count: number;
  /** The language the query was analysed as (`und` when no language could be told). */
  language: string;
}

/** Scripts whose words are stemmed, and the languages written in each (for a fixed setting). */
const SCRIPT_OF: Record<string, Script> = {
  ru: "cyrillic",
  uk: "cyrillic",
  bg: "cyrillic",
  el: "greek",
  ar: "arabic",
  hy: "other",
  ne: "other",
  ta: "other",
};
/** The weight of a word's other forms beside its most likely stem (QueryAnalysis.variants). */
const VARIANT_BOOST = 0.3;
const ALPHABETIC: ReadonlySet<Script> = new Set(["latin", "cyrillic", "greek", "arabic", "other"]);

/** Any character outside printable ASCII (tabs and line ends aside). */
const NOT_ASCII = /[^\t\n\r -~]/;

/** The analysis of one chunk's text. */
export function analyseChunk(text: string, setting: string): ChunkAnalysis {
  return NOT_ASCII.test(text) ? analyseAnyText(text, setting) : analyseAscii(text, setting);
}

/**
 * A chunk as ingestion needs it: analysed, and the text a built-in embedder reads (when
 * `builtin`; the text as written otherwise), from one split into words. With `doc`, the
 * languages its document's earlier chunks were detected in are taken again (detect.ts).
 */
export function analyseForIndex(
  text: string,
  setting: string,
  builtin: boolean,
  doc?: DocumentLanguages,
): ChunkAnalysis & { embedded: string } {
  if (!NOT_ASCII.test(text)) return { ...analyseAscii(text, setting, doc), embedded: text };
  const words = wordsOf(text);
  const pairs = runPairs(text);
  const embedded = builtin ? embeddingTextOf(text, words, pairs) : text;
  const { terms, grams } = analyseWords(words, setting, pairs, doc);
  return { terms, grams, embedded };
}

/** analyseChunk of any text (exported for the test that holds the ASCII path to it). */
export function analyseAnyText(text: string, setting: string): ChunkAnalysis {
  return analyseWords(wordsOf(text), setting, runPairs(text));
}

/** A chunk's analysis from its words and the character pairs of its Han and kana runs (runPairs). */
function analyseWords(words: Word[], setting: string, pairs: string, doc?: DocumentLanguages): ChunkAnalysis {
  const main = doc && setting === AUTO ? mainScript(words) : null;
  const langs = scriptLanguages(words, setting, (w, script) => {
    const found = main ? doc!.of(w, script, main) : chunkLanguage(w);
    return found ? [found] : [];
  });
  const lang = langs.get("latin")?.[0] ?? null;
  const latin = setting === AUTO && lang !== null ? { words: [], stops: new Uint8Array(words.length) } : undefined;
  const first = wordTerms(words, langs, pairs, null, latin);
  if (!latin || latin.words.length < PASSAGE_MIN_WORDS) return first;
  // An English chunk's terms marked the Latin words English drops; another's are looked up.
  const parts = passages(latin.words, lang, lang === "en" ? latin.stops : englishStops(latin.words));
  return parts.length ? wordTerms(words, langs, pairs, new PassageCursor(parts, lang)) : first;
}

/**
 * The terms and grams of a chunk's words, each script's in its language, the Latin ones in
 * their passage's when `cursor` is given. With `latin`, its Latin words are collected
 * (lower-cased) and those whose term is left out marked.
 */
function wordTerms(
  words: Word[],
  langs: Map<Script, string[]>,
  pairs: string,
  cursor: PassageCursor | null,
  latin?: { words: string[]; stops: Uint8Array },
): ChunkAnalysis {
  let latinSeen = 0;
  const terms: string[] = [];
  const grams: string[] = [];
  for (const w of words) {
    const isLatin = w.script === "latin";
    const lang = isLatin && cursor ? cursor.at(latinSeen) : (langs.get(w.script)?.[0] ?? null);
    if (!ALPHABETIC.has(w.script)) terms.push(w.text);
    else {
      const lower = w.text.toLowerCase();
      const term = indexTerm(lower, w.script, lang);
      if (term !== null) terms.push(term);
      else if (isLatin && latin) latin.stops[latinSeen] = 1;
      if (isLatin) latin?.words.push(lower);
      if (lang !== "en") wordGrams(lower, w.script, grams);
    }
    if (isLatin) latinSeen++;
    if (w.script === "hangul") bigrams(w.text, grams);
  }
  return { terms: terms.join(" "), grams: withPairs(grams, pairs) };
}

/**
 * analyseChunk of printable ASCII text, which is all Latin words: the same terms and grams
 * with a fraction of the work (the case folded once, words by a plain regex, no accents),
 * for English ingestion stays nearly as fast as before languages (docs/languages.md).
 */
function analyseAscii(text: string, setting: string, doc?: DocumentLanguages): ChunkAnalysis {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const lang = setting !== AUTO ? latinOnly(setting) : doc ? doc.of(words, "latin", "latin") : chunkLanguage(words);
  const terms: string[] = [];
  const grams: string[] = [];
  if (setting !== AUTO || lang === null || words.length < PASSAGE_MIN_WORDS)
    asciiTerms(words, 0, words.length, lang, terms, grams);
  else {
    // An English chunk's terms mark the words English drops: most chunks have no passage and are done then.
    const stops = new Uint8Array(words.length);
    if (lang === "en") asciiTerms(words, 0, words.length, lang, terms, grams, stops);
    const parts = passages(words, lang, lang === "en" ? stops : englishStops(words));
    if (lang !== "en" || parts.length) asciiSpans(words, parts, lang, terms, grams);
  }
  return { terms: terms.join(" "), grams: grams.join(" ") };
}

/** A chunk's terms and grams made afresh, each passage's words in its language and the rest in the chunk's. */
function asciiSpans(words: string[], parts: readonly Passage[], lang: string, terms: string[], grams: string[]): void {
  terms.length = 0;
  grams.length = 0;
  let at = 0;
  for (const part of parts) {
    asciiTerms(words, at, part.from, lang, terms, grams);
    asciiTerms(words, part.from, part.to, part.language, terms, grams);
    at = part.to;
  }
  asciiTerms(words, at, words.length, lang, terms, grams);
}

/** The terms and grams of words `from` to `to` (excluded) in `lang`; with `stops`, the words left out marked 1. */
function asciiTerms(
  words: string[],
  from: number,
  to: number,
  lang: string | null,
  terms: string[],
  grams: string[],
  stops?: Uint8Array,
): void {
  for (let i = from; i < to; i++) {
    const w = words[i]!;
    const term = indexTerm(w, "latin", lang);
    if (term !== null) terms.push(term);
    else if (stops) stops[i] = 1;
    if (lang !== "en" && w.length >= TRIGRAM_MIN) trigrams(w, grams);
  }
}

/** A fixed language as it applies to Latin words: itself if written in Latin letters, else none. */
function latinOnly(setting: string): string | null {
  return (SCRIPT_OF[setting] ?? "latin") === "latin" ? setting : null;
}

/** The analysis of a query, as analyseChunk analyses the chunks it is meant to find. */
export function analyseQuery(text: string, setting: string): QueryAnalysis {
  const words = wordsOf(text);
  const langs = scriptLanguages(words, setting, queryLanguages);
  const terms = new Set<string>();
  const variants = new Set<string>();
  const grams: string[] = [];
  for (const w of words) {
    const guesses = langs.get(w.script) ?? [];
    if (!ALPHABETIC.has(w.script)) {
      terms.add(w.text);
    } else {
      const lower = w.text.toLowerCase();
      const term = indexTerm(lower, w.script, guesses[0] ?? null);
      if (term === null) continue;
      terms.add(term);
      // Unsure of the language, the plain word too: chunks of no sure language are unstemmed.
      if (guesses.length > 1) variants.add(termOf(lower, w.script, null));
      for (const lang of guesses.slice(1)) variants.add(termOf(lower, w.script, lang));
      if (guesses[0] !== "en") wordGrams(lower, w.script, grams);
    }
    if (w.script === "hangul") bigrams(w.text, grams);
  }
  const main = mainScript(words);
  for (const t of terms) variants.delete(t);
  return {
    terms: [...terms].join(" "),
    variants: [...variants].join(" "),
    variantBoost: VARIANT_BOOST,
    grams: withPairs(grams, runPairs(text)),
    gramBoost: main === "hangul" ? 2 : main === "cjk" ? 0.15 : 0.3,
    count: terms.size,
    language: languageOf(main, text, words, langs),
  };
}

/** Trigrams of a long alphabetic word, folded as its term is. */
function wordGrams(lower: string, script: Script, out: string[]): void {
  if (lower.length < TRIGRAM_MIN) return;
  trigrams(termOf(lower, script, null), out);
}

/** The languages of each alphabetic script's words: detected under `auto`, else the setting's for its own script. */
function scriptLanguages(
  words: Word[],
  setting: string,
  detect: (words: string[], script: Script) => string[],
): Map<Script, string[]> {
  const out = new Map<Script, string[]>();
  if (setting !== AUTO) {
    out.set(SCRIPT_OF[setting] ?? "latin", [setting]);
    return out;
  }
  const byScript = new Map<Script, string[]>();
  for (const w of words) {
    if (!ALPHABETIC.has(w.script) || /^\p{N}+$/u.test(w.text)) continue;
    const list = byScript.get(w.script) ?? byScript.set(w.script, []).get(w.script)!;
    list.push(w.text);
  }
  for (const [script, list] of byScript) out.set(script, script === "greek" ? ["el"] : detect(list, script));
  return out;
}

/** The script most of the words' letters are in. */
function mainScript(words: Word[]): Script | null {
  const size = new Map<Script, number>();
  for (const w of words) size.set(w.script, (size.get(w.script) ?? 0) + w.text.length * (w.script === "cjk" ? 2 : 1));
  let best: Script | null = null;
  for (const [script, n] of size) if (best === null || n > size.get(best)!) best = script;
  return best;
}

const SEA: [RegExp, string][] = [
  [/\p{sc=Thai}/u, "th"],
  [/\p{sc=Lao}/u, "lo"],
  [/\p{sc=Khmer}/u, "km"],
  [/\p{sc=Myanmar}/u, "my"],
];

function languageOf(main: Script | null, text: string, words: Word[], langs: Map<Script, string[]>): string {
  if (main === "cjk") return hasKana(text) ? "ja" : "zh";
  if (main === "hangul") return "ko";
  if (main === "sea") {
    const word = words.find((w) => w.script === "sea")!.text;
    return SEA.find(([re]) => re.test(word))?.[1] ?? "und";
  }
  return (main && langs.get(main)?.[0]) ?? "und";
}
