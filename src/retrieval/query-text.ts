/**
 * A query's text as one generation reads it: analysed as its chunks were (text/analyze.ts)
 * for the full-text index, segmented for a built-in embedder (text/embedding-text.ts),
 * and the language it was analysed as, which the answer reports. A generation made
 * before languages (`legacy`) gets the text as it is, and no language.
 */
import { isBuiltinModel } from "../embed/models";
import { analyseQuery } from "../text/analyze";
import { embeddingText } from "../text/embedding-text";
import { LEGACY } from "../text/languages";
import type { AnalysedQuery } from "../vectors/full-text";

export interface QueryText {
  /** What the embedder reads. */
  embedded: string;
  analysed?: AnalysedQuery;
  /** The language the query was analysed as (`und` when none could be told); absent on a legacy generation. */
  language?: string;
}

export function queryText(query: string, language: string, model: string): QueryText {
  if (language === LEGACY) return { embedded: query };
  const { language: found, ...analysed } = analyseQuery(query, language);
  return { embedded: isBuiltinModel(model) ? embeddingText(query) : query, analysed, language: found };
}
