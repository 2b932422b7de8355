/**
 * The query path: who is asking (the API key), how fast (per-key token bucket)
 * and what comes back (the searcher's answer on the key's pipeline; a pipeline
 * with no chunks answers []).
 */
import { findCollectionById } from "../../db/repo/collections";
import type { Collection } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError } from "../../http/errors";
import type { SearchRequest } from "../../retrieval/request";
import type { Searcher } from "../../retrieval/searcher";
import { TokenBucket } from "../../tools/rate-limit";
import type { Asker, QueryLog } from "../insight/query-log";
import type { KeyService } from "../keys/service";

/** Which keys a door takes: a pipeline's (POST /api/rag/query), a knowledge base's (its search), or both (MCP). */
export type Door = "pipeline" | "kb" | "any";

/** 403 for a key presented at the other kind's door, naming the right one. */
function wrongDoor(kind: "pipeline" | "kb"): AppError {
  return new AppError(
    "forbidden",
    kind === "kb"
      ? "this API key belongs to a knowledge base: search it with POST /api/kb/{id}/search or through /mcp"
      : "this API key belongs to a pipeline: query it with POST /api/rag/query or through /mcp",
  );
}

export class QueryService {
  private readonly limiter: TokenBucket;
  private readonly burst: number;

  constructor(
    private readonly db: Store,
    private readonly keys: KeyService,
    private readonly searcher: Searcher,
    rate: { queryRate: number; queryBurst: number },
    /** Where searches of collections whose query log is on are recorded (insight/query-log.ts). */
    readonly log: QueryLog,
  ) {
    this.limiter = new TokenBucket(rate.queryRate, rate.queryBurst);
    this.burst = rate.queryBurst;
  }

  /**
   * admit() for `queries` queries at once (an MCP batch, each message one query): all of
   * them are taken from the key's budget, or none and 429 (docs/API.md, MCP). More than a
   * burst holds could never pass, so it is 400 rather than a 429 to retry forever.
   */
  async admitKey(
    authorization: string | null,
    queries: number,
    door: Door = "pipeline",
  ): Promise<{ collection: Collection; keyId: string; access: string | null }> {
    const { keyId, collectionId, kind, access } = await this.keys.authorize(authorization, "query");
    if (door !== "any" && kind !== door) throw wrongDoor(kind);
    if (queries > this.burst)
      throw new AppError(
        "invalid_request",
        `a batch of ${queries} messages is more than this key may send at once (${this.burst}); send at most ${this.burst} a request`,
      );
    const wait = this.limiter.take(keyId, queries);
    if (wait > 0) {
      throw new AppError("rate_limited", "too many queries with this key; slow down", undefined, {
        "retry-after": String(wait),
      });
    }
    // Deleted since the key was checked: the key went with it.
    const collection = await findCollectionById(this.db.reader, collectionId);
    if (!collection) throw new AppError("invalid_api_key", "unknown or revoked API key");
    return { collection, keyId, access };
  }

  /** Rate-limits the owner's own searches (one bucket per user, as a key has), then passes the pipeline on. */
  admitOwner(userId: string, collection: Collection): Collection {
    const wait = this.limiter.take(`user:${userId}`);
    if (wait > 0) {
      throw new AppError("rate_limited", "too many queries; slow down", undefined, { "retry-after": String(wait) });
    }
    return collection;
  }

  /**
   * Searches the key's pipeline: {results, pipelineId, query, topK}; `access` is what the
   * key or token may see (keys/access.ts), held to before ranking; `asker` is who asked,
   * for the query log (a search without one, such as a benchmark's, is not logged).
   */
  async query(collection: Collection, body: SearchRequest, access: string | null = null, asker?: Asker) {
    const search = () => this.searcher.search(collection, body, undefined, access);
    const answer = asker ? this.log.around(collection, asker, body, search) : search();
    const { results, query, topK, ...rest } = await answer;
    return { results, pipelineId: collection.id, query, topK, ...rest };
  }
}
