/**
 * The full-text query of a search. A table made before languages has LanceDB's own
 * analysis on `text`: the query's words go to it as they are. A table whose text ragd
 * analyses (text/analyze.ts) is searched with the query analysed the same way: its terms
 * against `terms`, OR-ed with its sub-word units against `grams` at a lower weight.
 */
import { type FullTextQuery, MatchQuery } from "@lancedb/lancedb";

/** A query as analysed for a table with analysed text (text/analyze.ts QueryAnalysis). */
export interface AnalysedQuery {
  terms: string;
  /** Other forms of the words (other languages' stems, the plain word), matched against `terms` at `variantBoost`. */
  variants?: string;
  variantBoost?: number;
  grams: string;
  gramBoost: number;
  /** Distinct query words: what BM25 sums are divided by (search.ts). */
  count: number;
}

/** The words of a text as a match query takes them: anything but letters, digits and marks is a space. */
export function matchableText(text: string): string {
  return text.replace(/[^\p{L}\p{N}\p{M}_]+/gu, " ").trim();
}

/**
 * The full-text queries for `text` (or its analysis), OR-ed: a row's score is the sum of
 * their scores (clause-search.ts runs them); none when nothing in it can match. A match
 * query takes the words as plain terms (OR-ed), so quotes, colons or AND/OR in user text
 * are never parsed as query syntax.
 */
export function fullTextClauses(text: string, analysed?: AnalysedQuery): FullTextQuery[] {
  if (!analysed) {
    const words = matchableText(text);
    return words ? [new MatchQuery(words, "text")] : [];
  }
  const clauses: FullTextQuery[] = [];
  if (analysed.terms) clauses.push(new MatchQuery(analysed.terms, "terms"));
  if (analysed.variants)
    clauses.push(new MatchQuery(analysed.variants, "terms", { boost: analysed.variantBoost ?? 1 }));
  if (analysed.grams) clauses.push(new MatchQuery(analysed.grams, "grams", { boost: analysed.gramBoost }));
  return clauses;
}
