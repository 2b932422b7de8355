/**
 * Answers a search request on one collection, for the query endpoint and the
 * knowledge-base search alike: apply the request's defaults, embed the query with
 * the model the active index was built with (cached), search the active
 * generation, and attach each hit's source metadata from SQLite. A collection is
 * its own table, so a key can never reach another pipeline's chunks, whatever its
 * filter says.
 */
import type { Config } from "../config";
import { countChunksOf } from "../db/repo/result-sources";
import { findIndexedTimes } from "../db/repo/result-times";
import type { Collection } from "../db/schema";
import type { Store } from "../db/store";
import { CountingEmbedder, type EmbedCall } from "../embed/calls";
import { createEmbedder } from "../embed/index";
import { isBuiltinModel } from "../embed/models";
import { EmbeddingError, type Embedder } from "../embed/types";
import { languageOf, modelOf } from "../ingest/generations";
import { RecentCache } from "../tools/recent-cache";
import { chunkId } from "../vectors/chunk-id";
import type { StoredHit, TableSearch, VectorStore } from "../vectors/store";
import { boostFactors, needsIndexedAt, reorderRanked, rescore } from "./boost";
import { RetrievalError } from "./errors";
import { type FacetAnswer, FacetCounter } from "./facets";
import {
  firstPoolDepth,
  groupDepth,
  pickResults,
  poolDepth,
  poolLists,
  poolSettles,
  shortSources,
  withNarrowed,
} from "./grouping";
import { Reranker, RerankFailure } from "./rerank";
import { blend, defaultHybridAlpha, RELEVANCE_FLOOR } from "../vectors/fusion";
import { queryText, type QueryText } from "./query-text";
import { resolveSearch, type ResolvedSearch, type SearchRequest } from "./request";
import { attachSources, type ResultMetadata } from "./result-metadata";
import { type ResultOptions, withResultOptions } from "./result-options";
import { SourceSpans } from "./source-spans";

export type { ResultMetadata } from "./result-metadata";

/** One chunk found: its text, its score in [0, 1] and where it came from. */
export interface SearchResult {
  content: string;
  score: number;
  /** The reranker's score, when the pipeline reranks and the reranker answered. */
  rerankScore?: number;
  metadata: ResultMetadata;
}

/** A result as answered: with what the request's options add (result-options.ts). */
export type AnsweredResult = SearchResult & ResultOptions;

/** The results with the query as searched (trimmed), the topK used and whether any result reaches the relevance floor. */
export interface SearchAnswer {
  results: AnsweredResult[];
  query: string;
  topK: number;
  noRelevantResults: boolean;
  /** Only when the collection has a rerank model: whether the reranker ordered these results. */
  reranked?: boolean;
  /** Why they were not reranked. */
  warning?: string;
  /** The language the query was analysed as (query-text.ts); absent for an index made before languages. */
  queryLanguage?: string;
  /** With `facets`: each key's most frequent values among the chunks the filter keeps (facets.ts). */
  facets?: FacetAnswer["facets"];
  /** Only when the facets were counted over the first FACET_ROWS matching chunks. */
  facetsTruncated?: true;
}

/** Searches collections; one instance serves every pipeline and knowledge base (its caches are shared). */
export class Searcher {
  private readonly embedders = new Map<string, Embedder>();
  private readonly vectors = new RecentCache<string, Float32Array>(1000);
  private readonly spans: SourceSpans;
  private readonly facetCounter: FacetCounter;

  constructor(
    private readonly db: Store,
    private readonly vectorStore: VectorStore,
    private readonly config: Pick<Config, "ollamaUrl" | "openaiUrl" | "openaiKey">,
    private readonly reranker: Reranker = new Reranker(null, silent),
    /** Hears of every call to an embedding backend (/metrics). */
    private readonly onEmbed: (call: EmbedCall) => void = () => {},
  ) {
    this.spans = new SourceSpans(db, vectorStore);
    this.facetCounter = new FacetCounter(vectorStore);
  }

  /**
   * Runs a client's search request on one collection (see resolveSearch for its defaults and rules).
   * `generation` searches another live generation than the active one (an evaluation of a re-index);
   * `access` is SQL every hit must also meet: what the caller's key or token may see.
   */
  async search(
    collection: Collection,
    request: SearchRequest,
    generation?: number,
    access: string | null = null,
  ): Promise<SearchAnswer> {
    const req = resolveSearch(request, collection, access);
    const which = generation ?? collection.activeGeneration;
    const rows = { where: req.where, sourceIds: req.sourceIds };
    const facets = req.facets && this.facetCounter.count(collection.id, which, req.facets, rows);
    facets?.catch(() => {}); // awaited below; a search that fails first must not leave it unhandled
    const text = queryText(req.query, languageOf(collection, which), modelOf(collection, which));
    const target = await this.target(collection, req, text, which);
    const model = collection.rerankModel;
    const rerank = model ? await this.reranked(collection, target, req, model) : undefined;
    const ranked = rerank?.results ?? (await this.unreranked(collection, target, req));
    const results = await withResultOptions(ranked, { collection, req, text, spans: this.spans, generation: which });
    const noRelevantResults = !results.some((r) => r.score >= RELEVANCE_FLOOR);
    const answer: SearchAnswer = { results, query: req.query, topK: req.topK, noRelevantResults };
    if (model) answer.reranked = rerank?.results !== undefined;
    if (rerank?.warning) answer.warning = rerank.warning;
    if (text.language) answer.queryLanguage = text.language;
    if (facets) {
      const counted = await facets;
      answer.facets = counted.facets;
      if (counted.truncated) answer.facetsTruncated = true;
    }
    return answer;
  }

  /**
   * Exact scores, boosted when asked; grouping or MMR choose topK from a wider pool (grouping.ts).
   * With perSource above 1 the pool picks the sources, and the chunks of those it holds too
   * few of come from one look at those sources alone: all their chunks ranked by exact lists,
   * or a search narrowed to them where those cannot settle it (vectors/source-chunks.ts).
   */
  private async unreranked(collection: Collection, target: Target | null, req: ResolvedSearch) {
    const first = firstPoolDepth(req);
    let { found, complete } = await this.scored(collection, target, req, { topK: first, ...poolLists(req) });
    if (!poolSettles(found, { depth: first, complete }, req))
      ({ found, complete } = await this.scored(collection, target, req, { topK: poolDepth(req), ...poolLists(req) }));
    const short = complete ? [] : shortSources(found, req);
    if (short.length === 0) return pickResults(found, req);
    const wholeRows = await countChunksOf(this.db.reader, short);
    const narrowed = { topK: groupDepth(req, short.length), documentIds: short, readWhole: true, wholeRows };
    const chunks = (await this.scored(collection, target, req, narrowed)).found;
    return pickResults(withNarrowed(found, req, short, chunks), req);
  }

  /**
   * The hits of the target's search changed by `change`, attached, boosted when asked;
   * `complete` when fewer than asked came back, so none is left out.
   */
  private async scored(
    collection: Collection,
    target: Target | null,
    req: ResolvedSearch,
    change: Partial<TableSearch>,
  ) {
    const hits = await this.hits(target, change);
    const complete = change.topK === undefined || hits.length < change.topK;
    const found = (await this.attach(collection, hits, req.restricted)).filter(isDefined);
    const results = req.boost ? rescore(found, await this.boostFactors(found, req), req.minScore) : found;
    return { found: results, complete };
  }

  /** Each result's boost factor (boost.ts); 1 each without a boost. */
  private async boostFactors(results: SearchResult[], req: ResolvedSearch): Promise<number[]> {
    if (!req.boost) return results.map(() => 1);
    const ids = [...new Set(results.map((r) => r.metadata.sourceId))];
    const times = needsIndexedAt(req.boost) ? await findIndexedTimes(this.db.reader, ids) : undefined;
    return boostFactors(results, req.boost, times);
  }

  /**
   * The reranker's best topK of a wider pool (docs/API.md, Reranking), or no results and why not.
   * The pool is ranked by the scores its lists gave, without looking up each candidate's
   * missing half (the reranker's order replaces that ranking); only the chosen topK then get
   * their exact hybrid score. A pool cut by minScore is scored exactly, as minScore demands.
   */
  private async reranked(
    collection: Collection,
    target: Target | null,
    req: ResolvedSearch,
    model: string,
  ): Promise<{ results?: SearchResult[]; warning?: string }> {
    const pool = Math.max(poolDepth(req, Math.max(req.topK * 4, 50)), groupDepth(req));
    const hits = await this.hits(target, { topK: pool, exact: req.minScore > 0 });
    if (hits.length === 0) return { results: [] };
    // The reranker works while the sources are read from SQLite.
    const [rerank, found] = await Promise.all([
      this.rerankScores(model, req.query, hits),
      this.attach(collection, hits, req.restricted),
    ]);
    if (!rerank.scores) return { warning: rerank.warning };
    const scores = rerank.scores;
    const ranked = found
      .flatMap((r, i) => (r ? [{ result: { ...r, rerankScore: scores[i]! }, hit: hits[i]! }] : []))
      .sort((a, b) => b.result.rerankScore - a.result.rerankScore);
    const hitOf = new Map<SearchResult, StoredHit>(ranked.map((x) => [x.result, x.hit]));
    const results = ranked.map((x) => x.result);
    const factors = await this.boostFactors(results, req);
    const factorOf = new Map(results.map((r, i) => [r, factors[i]!]));
    const chosen = pickResults(req.boost ? reorderRanked(results, factors) : results, req, byRank);
    const exact = await this.exactScores(target, chosen, hitOf);
    if (!req.boost) return { results: exact };
    // The boost scales the chosen results' exact scores; the order stays the boosted rank's.
    const scaled = exact.map((r, i) => ({ ...r, score: r.score * factorOf.get(chosen[i]!)! }));
    return { results: scaled.filter((r) => r.score >= req.minScore) };
  }

  /**
   * Gives the chosen results whose pool score was only a lower bound their exact hybrid score
   * (docs/API.md, Scores and the hybrid blend): the missing half is looked up as hybrid
   * search looks it up, by a search narrowed to those chunks.
   */
  private async exactScores(
    target: Target | null,
    chosen: SearchResult[],
    hitOf: Map<SearchResult, StoredHit>,
  ): Promise<SearchResult[]> {
    const partial = chosen.map((r) => hitOf.get(r)!).filter((h) => h.partial);
    if (!target || partial.length === 0) return chosen;
    const missing = async (mode: "vector" | "keyword") => {
      const hits = partial.filter((h) => h.partial![mode] === undefined);
      if (hits.length === 0) return new Map<string, number>();
      const chunkIds = hits.map((h) => chunkId(h.documentId, h.chunkIndex));
      // A keyword score is the pool's list's (its filters kept: they decide a new row's
      // statistics); a vector's is the same whatever the filter, which would only slow it.
      const filters = mode === "vector" ? { where: undefined, documentIds: undefined } : {};
      const narrowed = { mode, topK: hits.length, minScore: 0, chunkIds, ...filters };
      return new Map((await this.hits(target, narrowed)).map((h) => [chunkKey(h), h.score]));
    };
    const [vector, keyword] = await Promise.all([missing("vector"), missing("keyword")]);
    const alpha = target.search.hybridAlpha!;
    return chosen.map((r) => {
      const h = hitOf.get(r)!;
      if (!h.partial) return r;
      const k = chunkKey(h);
      const pair = {
        vector: h.partial.vector ?? vector.get(k) ?? 0,
        keyword: h.partial.keyword ?? keyword.get(k) ?? 0,
      };
      return { ...r, score: blend(pair, alpha) };
    });
  }

  /** The reranker's score of each hit, in order, or why not (the query then answers unreranked). */
  private async rerankScores(
    model: string,
    query: string,
    hits: StoredHit[],
  ): Promise<{ scores?: number[]; warning?: string }> {
    try {
      return {
        scores: await this.reranker.scores(
          model,
          query,
          hits.map((h) => h.text),
        ),
      };
    } catch (err) {
      if (!(err instanceof RerankFailure)) throw err;
      return { warning: `${err.message}; the results are not reranked` };
    }
  }

  /** What to search: a generation and the request's table search; null when it is empty. */
  private async target(
    collection: Collection,
    req: ResolvedSearch,
    text: QueryText,
    generation: number,
  ): Promise<Target | null> {
    const model = modelOf(collection, generation);
    if ((await this.vectorStore.countRows(collection.id, generation)) === 0) return null;
    const vector = req.mode === "keyword" ? undefined : await this.embedQuery(model, text.embedded);
    const search: TableSearch = {
      mode: req.mode,
      text: req.query,
      analysed: text.analysed,
      vector,
      topK: req.topK,
      minScore: req.minScore,
      documentIds: req.sourceIds,
      where: req.where,
      hybridAlpha: req.hybridAlpha ?? defaultHybridAlpha(model),
      vectorKind: isBuiltinModel(model) ? "builtin" : "model",
      // A restricted caller's hits bring the labels the filter was applied to (current-labels.ts).
      labels: req.restricted,
    };
    return { collectionId: collection.id, generation, search };
  }

  /** The target's search with some fields changed; an empty generation answers [] without embedding. */
  private hits(target: Target | null, change: Partial<TableSearch>): Promise<StoredHit[]> {
    if (!target) return Promise.resolve([]);
    return this.vectorStore.search(target.collectionId, target.generation, { ...target.search, ...change });
  }

  /** Each hit with its source's metadata (result-metadata.ts, attachSources). */
  private attach(collection: Collection, hits: StoredHit[], restricted: boolean) {
    return attachSources(this.db.reader, collection.id, hits, restricted);
  }

  /** The query's vector; a backend that does not answer is an `embedding_unavailable` RetrievalError. */
  private async embedQuery(model: string, text: string): Promise<Float32Array> {
    const key = `${model}\u0000${text}`;
    const cached = this.vectors.get(key);
    if (cached) return cached;
    let embedder = this.embedders.get(model);
    if (!embedder) {
      // A query waits for a person: fail fast (one retry, 5 s each) rather than hang.
      embedder = new CountingEmbedder(
        createEmbedder(model, { ...this.config, timeoutMs: 5000, attempts: 2 }),
        this.onEmbed,
      );
      this.embedders.set(model, embedder);
    }
    try {
      const [v] = await embedder.embed([text]);
      this.vectors.set(key, v!);
      return v!;
    } catch (err) {
      if (err instanceof EmbeddingError) {
        const hint = `${err.message}; keyword mode still works (mode: "keyword")`;
        throw new RetrievalError("embedding_unavailable", hint);
      }
      throw err;
    }
  }
}

/** A generation to search and the request's search of it. */
interface Target {
  collectionId: string;
  generation: number;
  search: TableSearch;
}

const isDefined = <T>(x: T | undefined): x is T => x !== undefined;

const chunkKey = (h: StoredHit) => `${h.documentId}\u0000${h.chunkIndex}`;

/** MMR's relevance after reranking: the reranker's order, as 1 for the first down to near 0. */
const byRank = (_r: SearchResult, i: number, n: number) => 1 - i / n;

const silent = { debug() {}, info() {}, warn() {}, error() {} };
