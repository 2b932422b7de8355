/**
 * What a request's options add to each chosen result, once ranking is done
 * (docs/API.md, Query): `highlights` (highlights.ts) and `expand`'s `context`
 * (expand.ts). Without them a result is exactly as ranked.
 */
import type { Collection } from "../db/schema";
import { languageOf } from "../ingest/generations";
import { expandResults, type HitContext } from "./expand";
import { type Highlight, highlightsOf, queryTerms } from "./highlights";
import type { QueryText } from "./query-text";
import type { ResolvedSearch } from "./request";
import type { ResultMetadata } from "./result-metadata";
import type { SourceSpans } from "./source-spans";

/** The fields the options add to a result. */
export interface ResultOptions {
  /** `highlights: true`: ranges [start, end) of `content` that match the query's terms. */
  highlights?: Highlight[];
  /** `expand`: the source's text around the hit. */
  context?: HitContext;
}

/** What the options need besides the results. */
export interface OptionsContext {
  collection: Collection;
  req: ResolvedSearch;
  text: QueryText;
  spans: SourceSpans;
  /** The generation searched (its language setting analyses the highlights). */
  generation: number;
}

/** The results with what the request's options add, in order. */
export async function withResultOptions<R extends { content: string; metadata: ResultMetadata }>(
  results: R[],
  ctx: OptionsContext,
): Promise<(R & ResultOptions)[]> {
  let out: (R & ResultOptions)[] = results;
  if (ctx.req.highlights) {
    const terms = queryTerms(ctx.req.query, ctx.text, languageOf(ctx.collection, ctx.generation));
    out = out.map((r) => ({ ...r, highlights: highlightsOf(r.content, terms) }));
  }
  if (ctx.req.expand) out = await expandResults(out, ctx.collection, ctx.req.expand, ctx.spans);
  return out;
}
