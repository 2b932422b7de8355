/**
 * The search request: what a client may ask of one collection (a pipeline or a
 * knowledge base) and the defaults for what it leaves out (docs/API.md, Query).
 * Both HTTP doors hand their validated body to `Searcher.search`, which resolves
 * it here, so the two can never drift apart.
 */
import type { Collection } from "../db/schema";
import type { SearchMode } from "../vectors/store";

export type { SearchMode } from "../vectors/store";

export const SEARCH_MODES = ["vector", "keyword", "hybrid"] as const satisfies readonly SearchMode[];

/** The longest query text, counted after trimming. */
export const MAX_QUERY_CHARS = 8000;

/** Narrows a search to some of the collection's chunks. */
export interface SearchFilter {
  /** Only chunks of these sources (documents); `[]` matches nothing. */
  sourceIds?: string[];
}

/** A search as a client sends it: only `query` is required. */
export interface SearchRequest {
  query: string;
  topK?: number;
  mode?: SearchMode;
  minScore?: number;
  filter?: SearchFilter;
}

/** A search request with its text trimmed and every default applied: what the searcher runs. */
export interface ResolvedSearch {
  query: string;
  topK: number;
  mode: SearchMode;
  minScore: number;
  sourceIds?: string[];
}

/** Why a query text is refused, or null when it is fine once trimmed. */
export function queryTextProblem(trimmed: string): string | null {
  if (trimmed.length === 0) return "must not be empty";
  if (trimmed.length > MAX_QUERY_CHARS) return `must be at most ${MAX_QUERY_CHARS} characters after trimming`;
  return null;
}

/**
 * Fills in the defaults: topK is the collection's retrievalTopK, mode hybrid,
 * minScore 0, no filter. The text is trimmed; the caller checks it with
 * `queryTextProblem`.
 */
export function resolveSearch(req: SearchRequest, collection: Pick<Collection, "retrievalTopK">): ResolvedSearch {
  return {
    query: req.query.trim(),
    topK: req.topK ?? collection.retrievalTopK,
    mode: req.mode ?? "hybrid",
    minScore: req.minScore ?? 0,
    sourceIds: req.filter?.sourceIds,
  };
}
