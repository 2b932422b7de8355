/**
 * The search request: what a client may ask of one collection (a pipeline or a
 * knowledge base) and the defaults for what it leaves out (docs/API.md, Query).
 * Both HTTP doors hand their validated body to `Searcher.search`, which resolves
 * it here, so the two can never drift apart.
 */
import type { Collection } from "../db/schema";
import type { SearchMode } from "../vectors/store";
import { type BoostRequest, type ResolvedBoost, resolveBoost } from "./boost";
import { RetrievalError } from "./errors";
import { checkFacetKeys } from "./facets";
import { compileMetadataFilter } from "./filter";

export type { SearchMode } from "../vectors/store";

export const SEARCH_MODES = ["vector", "keyword", "hybrid"] as const satisfies readonly SearchMode[];

/** The longest query text, counted after trimming. */
export const MAX_QUERY_CHARS = 8000;

/** Narrows a search to some of the collection's chunks. */
export interface SearchFilter {
  /** Only chunks of these sources (documents); `[]` matches nothing. */
  sourceIds?: string[];
  /** Conditions on source metadata, `sourceType` and `externalId` (retrieval/filter.ts). */
  metadata?: unknown;
}

/** Text around each hit (retrieval/expand.ts): so many characters, or so many neighbouring chunks, each side; one of the two. */
export interface ExpandRequest {
  chars?: number;
  chunks?: number;
}

/** A search as a client sends it: only `query` is required. */
export interface SearchRequest {
  query: string;
  topK?: number;
  mode?: SearchMode;
  minScore?: number;
  filter?: SearchFilter;
  /** Hybrid blend, 0 = keyword only … 1 = vector only (docs/API.md, Scores and the hybrid blend). */
  hybridAlpha?: number;
  /** 0 (default) … 1: how much maximal marginal relevance trades score for variety (retrieval/diversity.ts). */
  diversity?: number;
  /** Each result's `context` from the stored source (retrieval/expand.ts). */
  expand?: ExpandRequest;
  /** Each result's `highlights`: where the query's terms are in its content (retrieval/highlights.ts). */
  highlights?: boolean;
  /** "source": the best `perSource` chunks of each of topK sources (retrieval/grouping.ts). */
  groupBy?: "source";
  /** With groupBy: chunks per source, 1 (default) … 10. */
  perSource?: number;
  /** Metadata keys whose most frequent values to count among the chunks the filter keeps (retrieval/facets.ts). */
  facets?: string[];
  /** Prefer recent sources and sources whose metadata match (retrieval/boost.ts). */
  boost?: BoostRequest;
}

/** A search request with its text trimmed and every default applied: what the searcher runs. */
export interface ResolvedSearch {
  query: string;
  topK: number;
  mode: SearchMode;
  minScore: number;
  sourceIds?: string[];
  /** The metadata filter compiled to SQL over the chunk table; absent when there is none. */
  where?: string;
  /** The caller is held to an access rule (a key's filter or a token's): retrieval/current-labels.ts. */
  restricted: boolean;
  /** The request's blend, else the collection's; undefined = the default for the index's embedder. */
  hybridAlpha?: number;
  diversity: number;
  expand?: ExpandRequest;
  highlights: boolean;
  /** Set when results are grouped by source: how many chunks each source keeps. */
  perSource?: number;
  facets?: string[];
  boost?: ResolvedBoost;
}

/**
 * Checks the query text and fills in the defaults: topK is the collection's
 * retrievalTopK, mode hybrid, minScore 0, no filter, hybridAlpha the collection's. A bad metadata
 * filter is refused the same way. The text is trimmed first; an
 * empty one or one over MAX_QUERY_CHARS is an `invalid_request` RetrievalError.
 */
export function resolveSearch(
  req: SearchRequest,
  collection: Pick<Collection, "retrievalTopK" | "hybridAlpha">,
  /** SQL the caller is held to whatever its filter says (its key's or token's access); null: none. */
  access: string | null = null,
): ResolvedSearch {
  const query = req.query.trim();
  const problem =
    query.length === 0
      ? "must not be empty"
      : query.length > MAX_QUERY_CHARS
        ? `must be at most ${MAX_QUERY_CHARS} characters after trimming`
        : null;
  if (problem) throw new RetrievalError("invalid_request", `query: ${problem}`, { field: "query", message: problem });
  checkExpand(req.expand);
  if (req.perSource !== undefined && req.groupBy === undefined) {
    const message = 'needs groupBy: "source"';
    throw new RetrievalError("invalid_request", `perSource: ${message}`, { field: "perSource", message });
  }
  return {
    query,
    topK: req.topK ?? collection.retrievalTopK,
    mode: req.mode ?? "hybrid",
    minScore: req.minScore ?? 0,
    sourceIds: req.filter?.sourceIds,
    where: both(access, compileMetadataFilter(req.filter?.metadata)),
    restricted: access !== null,
    hybridAlpha: req.hybridAlpha ?? collection.hybridAlpha ?? undefined,
    diversity: req.diversity ?? 0,
    expand: req.expand,
    highlights: req.highlights ?? false,
    perSource: req.groupBy === "source" ? (req.perSource ?? 1) : undefined,
    facets: checkFacetKeys(req.facets),
    boost: resolveBoost(req.boost, Date.now()),
  };
}

/** `expand` names exactly one of chars and chunks; its ranges are the schemas'. */
function checkExpand(expand: ExpandRequest | undefined): void {
  if (!expand || (expand.chars === undefined) !== (expand.chunks === undefined)) return;
  const message = "must be {chars: N} or {chunks: N}, one of the two";
  throw new RetrievalError("invalid_request", `expand: ${message}`, { field: "expand", message });
}

/** Two predicates that must both hold; undefined when neither is given. */
function both(a: string | null, b: string | null): string | undefined {
  if (a === null) return b ?? undefined;
  return b === null ? a : `(${a}) AND (${b})`;
}
