/**
 * The words of a text, each with the script it is written in. Text is cut at anything
 * that is not a letter, digit or mark, as LanceDB's `simple` tokenizer cuts it; runs of a
 * script written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) are then split by
 * the runtime's word breaker (`Intl.Segmenter`, ICU's dictionaries, inside Bun). Text
 * without such runs never meets the word breaker: it is the costly part, and a text's
 * runs meet it in one call, not one call each (half the time on Chinese and Japanese).
 */

/** The script a word is written in, as far as analysis cares. */
export type Script = "cjk" | "sea" | "hangul" | "latin" | "cyrillic" | "greek" | "arabic" | "other";

export interface Word {
  text: string;
  script: Script;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;
/** Han, kana (with the prolonged sound mark), and the scripts of South-East Asia written without spaces. */
const UNSPACED = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]+/gu;
const HAS_UNSPACED = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const KANA = /[\p{sc=Hiragana}\p{sc=Katakana}]/u;

let segmenter: Intl.Segmenter | null = null;

/** The words of `text` in order. */
export function wordsOf(text: string): Word[] {
  // Words, and in place of each unspaced run its number in `runs`, until the word breaker has them all.
  const parts: (Word | number)[] = [];
  const runs: string[] = [];
  for (const [token] of text.matchAll(TOKEN)) {
    if (!HAS_UNSPACED.test(token)) parts.push({ text: token, script: scriptOf(token) });
    else splitUnspaced(token, parts, runs);
  }
  if (!runs.length) return parts as Word[];
  const byRun = segmentRuns(runs);
  const out: Word[] = [];
  for (const p of parts) {
    if (typeof p === "number") for (const w of byRun[p]!) out.push(w);
    else out.push(p);
  }
  return out;
}

/** A word with where it is in the text: text.slice(start, end) === word.text. */
export interface WordAt extends Word {
  start: number;
  end: number;
}

/**
 * wordsOf with each word's character offsets (highlights); the same words in the same
 * order. Kept apart from wordsOf, which ingestion calls on every chunk and which needs no offsets.
 */
export function wordsAt(text: string): WordAt[] {
  const out: WordAt[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const token = m[0];
    if (!HAS_UNSPACED.test(token))
      out.push({ text: token, script: scriptOf(token), start: m.index, end: m.index + token.length });
    else for (const w of wordsOf(token)) placeWord(w, token, m.index, out);
  }
  return out;
}

/** Places a word of `token` (which starts at `at`) after the previous word found in it. */
function placeWord(w: Word, token: string, at: number, out: WordAt[]): void {
  const last = out[out.length - 1];
  const from = last && last.start >= at ? last.end - at : 0;
  const i = token.indexOf(w.text, from);
  out.push({ ...w, start: at + i, end: at + i + w.text.length });
}

/** A token holding unspaced runs: what lies between them as it is, each run's number in `runs` in its place. */
function splitUnspaced(token: string, out: (Word | number)[], runs: string[]): void {
  let at = 0;
  for (const m of token.matchAll(UNSPACED)) {
    if (m.index > at) pushPlain(token.slice(at, m.index), out);
    out.push(runs.push(m[0]) - 1);
    at = m.index + m[0].length;
  }
  if (at < token.length) pushPlain(token.slice(at), out);
}

/**
 * The words of each run, from one pass of the word breaker over all of them joined by
 * line breaks: a line break is a boundary the breaker never crosses (Unicode word break
 * rules WB3a and WB3b), so each run splits as it would alone.
 */
function segmentRuns(runs: string[]): Word[][] {
  segmenter ??= new Intl.Segmenter("und", { granularity: "word" });
  const out: Word[][] = runs.map(() => []);
  let k = 0;
  let end = runs[0]!.length;
  for (const s of segmenter.segment(runs.join("\n"))) {
    while (s.index >= end) end += 1 + runs[++k]!.length;
    if (s.isWordLike) out[k]!.push({ text: s.segment, script: CJK.test(s.segment) ? "cjk" : "sea" });
  }
  return out;
}

function pushPlain(text: string, out: (Word | number)[]): void {
  // A lone prolonged sound mark or combining mark left between runs is no word.
  if (/[\p{L}\p{N}]/u.test(text)) out.push({ text, script: scriptOf(text) });
}

/** The runs of Han and kana in `text` (what character bigrams are made from). */
export function cjkRuns(text: string): string[] {
  return text.match(/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc]+/gu) ?? [];
}

/** True when `text` has kana: Han text with kana is Japanese, without it Chinese. */
export function hasKana(text: string): boolean {
  return KANA.test(text);
}

/** True when `text` has a run the word breaker splits. */
export function hasUnspaced(text: string): boolean {
  return HAS_UNSPACED.test(text);
}

const SCRIPTS: [RegExp, Script][] = [
  [/\p{sc=Hangul}/u, "hangul"],
  [/\p{sc=Cyrillic}/u, "cyrillic"],
  [/\p{sc=Greek}/u, "greek"],
  [/\p{sc=Arabic}/u, "arabic"],
  [/\p{sc=Latin}/u, "latin"],
];

/** The script of a word with no unspaced run: the first that any of its letters is in; digits alone count as Latin. */
export function scriptOf(word: string): Script {
  if (/^[ -~]*$/.test(word)) return "latin"; // printable ASCII: words hold no control characters
  for (const [re, script] of SCRIPTS) if (re.test(word)) return script;
  return /\p{L}/u.test(word) ? "other" : "latin";
}
