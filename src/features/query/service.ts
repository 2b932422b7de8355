/**
 * The query path: who is asking (the API key), how fast (per-key token bucket),
 * what exactly (validated body) and what comes back (results from the engine's
 * searcher, which later parts register; a pipeline with no chunks answers []).
 */
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/queries/collections";
import type { Collection } from "../../db/schema";
import { AppError } from "../../http/errors";
import { TokenBucket } from "../../tools/rate-limit";
import type { KeyService } from "../keys/service";
import type { QueryBodyT, QueryResult } from "./model";

export const MAX_QUERY_CHARS = 8000;

/** The query text trimmed, or 400 when it is empty or longer than 8000 characters after trimming. */
export function normalizeQuery(raw: string): string {
  const query = raw.trim();
  const problem =
    query.length === 0
      ? "must not be empty"
      : query.length > MAX_QUERY_CHARS
        ? `must be at most ${MAX_QUERY_CHARS} characters after trimming`
        : null;
  if (problem) throw new AppError("invalid_request", `query: ${problem}`, [{ field: "query", message: problem }]);
  return query;
}

export interface SearchRequest {
  query: string;
  topK: number;
  mode: "vector" | "keyword" | "hybrid";
  minScore: number;
  sourceIds?: string[];
}

/** Searches one collection; supplied by the retrieval engine. */
export type Searcher = (collection: Collection, req: SearchRequest) => Promise<QueryResult[]>;

export class QueryService {
  private readonly limiter: TokenBucket;
  private searcher: Searcher | null = null;

  constructor(
    private readonly db: Db,
    private readonly keys: KeyService,
    rate: { queryRate: number; queryBurst: number },
  ) {
    this.limiter = new TokenBucket(rate.queryRate, rate.queryBurst);
  }

  /** Plugs in the search engine. */
  useSearcher(fn: Searcher): void {
    this.searcher = fn;
  }

  /** Authenticates and rate-limits the caller before anything else is looked at. */
  admit(authorization: string | null): Collection {
    const { keyId, collectionId } = this.keys.authenticate(authorization);
    const wait = this.limiter.take(keyId);
    if (wait > 0) {
      throw new AppError("rate_limited", "too many queries with this key; slow down", undefined, {
        "retry-after": String(wait),
      });
    }
    const collection = findCollectionById(this.db, collectionId);
    if (!collection) throw new AppError("invalid_api_key", "unknown or revoked API key");
    return collection;
  }

  async query(collection: Collection, body: QueryBodyT) {
    const query = normalizeQuery(body.query);
    const topK = body.topK ?? collection.retrievalTopK;
    const req: SearchRequest = {
      query,
      topK,
      mode: body.mode ?? "hybrid",
      minScore: body.minScore ?? 0,
      sourceIds: body.filter?.sourceIds,
    };
    const results = this.searcher ? await this.searcher(collection, req) : [];
    return { results, pipelineId: collection.id, query, topK };
  }
}
