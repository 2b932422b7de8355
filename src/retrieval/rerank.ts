/**
 * A client of a reranking server (docs/API.md, Reranking): the widely served
 * `POST {url}/v1/rerank` {model, query, documents, top_n} →
 * {results: [{index, relevance_score}]}. A reranker that does not answer in time,
 * answers an error, or answers a wrong shape (fewer scores than documents, an
 * index out of range or repeated, a score that is not a finite number) is treated
 * as down: the caller answers unreranked. Each kind of failure is logged once a
 * minute at most.
 */
import type { Logger } from "../log";
import { throttledLogger } from "../log-throttle";

/** How long a query waits for the reranker before answering unreranked. */
const RERANK_TIMEOUT_MS = 5000;

/** Why a rerank did not happen; shown to the client as the response's `warning`. */
export class RerankFailure extends Error {}

export class Reranker {
  private readonly log: Logger;

  constructor(
    private readonly url: string | null,
    log: Logger,
    private readonly timeoutMs = RERANK_TIMEOUT_MS,
  ) {
    this.log = throttledLogger(log);
  }

  /** One relevance score per document, in document order; throws RerankFailure when it cannot. */
  async scores(model: string, query: string, documents: string[]): Promise<number[]> {
    if (!this.url) throw this.fail("no reranker is configured (RAGD_RERANK_URL)");
    let body: unknown;
    try {
      const r = await fetch(`${this.url}/v1/rerank`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, query, documents, top_n: documents.length }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!r.ok) throw this.fail(`the reranker answered HTTP ${r.status}`);
      body = await r.json();
    } catch (err) {
      if (err instanceof RerankFailure) throw err;
      const why = (err as Error).name === "TimeoutError" ? `no answer in ${this.timeoutMs} ms` : "unreachable";
      throw this.fail(`the reranker is ${why}`);
    }
    return this.check(body, documents.length);
  }

  /** The scores of a well-formed answer covering every document exactly once. */
  private check(body: unknown, n: number): number[] {
    const results = (body as { results?: unknown })?.results;
    if (!Array.isArray(results) || results.length !== n) throw this.fail(`the reranker's answer is not ${n} results`);
    const out: number[] = new Array(n).fill(Number.NaN);
    for (const x of results as { index?: unknown; relevance_score?: unknown }[]) {
      const i = x?.index;
      const s = x?.relevance_score;
      if (!Number.isInteger(i) || (i as number) < 0 || (i as number) >= n || !Number.isNaN(out[i as number]))
        throw this.fail("the reranker's answer has a missing, repeated or out-of-range index");
      if (typeof s !== "number" || !Number.isFinite(s))
        throw this.fail("the reranker's answer has a score that is not a number");
      out[i as number] = s;
    }
    return out;
  }

  private fail(message: string): RerankFailure {
    this.log.warn("rerank failed; answering unreranked", { reason: message });
    return new RerankFailure(message);
  }
}
