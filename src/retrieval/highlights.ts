/**
 * A query's `highlights` option (docs/API.md, Query, "Why it matched"): the character
 * ranges [start, end) in each result's `content` of the words that match a term of
 * the query, after the analysis the full-text index uses (text/analyze.ts). A word of
 * an alphabetic script matches when its lower-cased, folded form, or its stem in the
 * query's language or the pipeline's fixed language, is one of the query's terms (so
 * `runs` is highlighted for the English query `running`, and stop words never are); a
 * word of Chinese, Japanese, Korean or a South-East Asian script matches when it is
 * itself one of the query's words, as the word breaker cut both.
 */
import { analyseQuery } from "../text/analyze";
import { AUTO, LEGACY } from "../text/languages";
import { termOf } from "../text/terms";
import { type Script, wordsAt } from "../text/words";
import type { QueryText } from "./query-text";

/** A range of characters [start, end) of a result's content. */
export type Highlight = [number, number];

/** Scripts whose words are terms as they stand (analyze.ts: no case, no stem). */
const AS_WRITTEN: ReadonlySet<Script> = new Set(["cjk", "sea", "hangul"]);

/** What a word is matched against: the query's terms and the languages to stem a word in. */
export interface QueryTerms {
  terms: Set<string>;
  languages: (string | null)[];
}

/** The query's terms as its search analysed them; a legacy index's query is analysed under `auto`. */
export function queryTerms(query: string, text: QueryText, setting: string): QueryTerms {
  const terms = text.analysed?.terms ?? analyseQuery(query, AUTO).terms;
  const languages = new Set<string | null>([null]);
  if (text.language && text.language !== "und") languages.add(text.language);
  if (setting !== AUTO && setting !== LEGACY) languages.add(setting);
  return { terms: new Set(terms.split(" ").filter(Boolean)), languages: [...languages] };
}

/** The ranges of `content`'s words that match the query, in order. */
export function highlightsOf(content: string, query: QueryTerms): Highlight[] {
  const out: Highlight[] = [];
  if (query.terms.size === 0) return out;
  for (const w of wordsAt(content)) {
    if (matches(w.text, w.script, query)) out.push([w.start, w.end]);
  }
  return out;
}

function matches(word: string, script: Script, query: QueryTerms): boolean {
  if (AS_WRITTEN.has(script)) return query.terms.has(word);
  const lower = word.toLowerCase();
  return query.languages.some((lang) => query.terms.has(termOf(lower, script, lang)));
}
