/**
 * Answers a query on one collection: embed the query with the model the active
 * index was built with (cached), search the active generation, and attach each
 * hit's source metadata from SQLite. A collection is its own table, so a key can
 * never reach another pipeline's chunks, whatever its filter says.
 */
import type { Config } from "../config";
import type { Db } from "../db/client";
import { listDocumentsByIds } from "../db/queries/documents";
import type { Collection, DocumentRow } from "../db/schema";
import { createEmbedder } from "../embed/index";
import { EmbeddingError, type Embedder } from "../embed/types";
import type { QueryResult } from "../features/query/model";
import type { SearchRequest } from "../features/query/service";
import { AppError } from "../http/errors";
import { queryTarget } from "../ingest/generations";
import type { VectorStore } from "../vectors/store";
import { LruCache } from "../tools/lru";

/** Hybrid fusion weight of the keyword list for pipelines on the built-in embedder. */
export const BUILTIN_KEYWORD_WEIGHT = 0.8;

export class Searcher {
  private readonly embedders = new Map<string, Embedder>();
  private readonly vectors = new LruCache<string, Float32Array>(1000);

  constructor(
    private readonly db: Db,
    private readonly store: VectorStore,
    private readonly config: Pick<Config, "ollamaUrl" | "openaiUrl" | "openaiKey">,
  ) {}

  async search(collection: Collection, req: SearchRequest): Promise<QueryResult[]> {
    // An empty index answers [] without asking an embedding backend that may be down.
    const { generation, model } = queryTarget(collection);
    if ((await this.store.countRows(collection.id, generation)) === 0) return [];
    const vector = req.mode === "keyword" ? undefined : await this.embedQuery(model, req.query);
    const hits = await this.store.search(collection.id, generation, {
      mode: req.mode,
      text: req.query,
      vector,
      topK: req.topK,
      minScore: req.minScore,
      documentIds: req.sourceIds,
      // The built-in embedder only sees words, so its list adds less than BM25's (SciFact nDCG@10:
      // keyword 0.662, vector 0.422); a real model's list is trusted as much as the keyword list.
      keywordWeight: model === "builtin" ? BUILTIN_KEYWORD_WEIGHT : 0.5,
    });
    const docs = new Map(
      listDocumentsByIds(this.db, [...new Set(hits.map((h) => h.documentId))]).map((d) => [d.id, d]),
    );
    const out: QueryResult[] = [];
    for (const h of hits) {
      const d = docs.get(h.documentId);
      if (!d || d.collectionId !== collection.id) continue; // deleted a moment ago
      out.push({ content: h.text, score: h.score, metadata: metadataOf(d, h) });
    }
    return out;
  }

  /** The query's vector; a backend that does not answer becomes 503 embedding_unavailable. */
  private async embedQuery(model: string, text: string): Promise<Float32Array> {
    const key = `${model}\u0000${text}`;
    const cached = this.vectors.get(key);
    if (cached) return cached;
    let embedder = this.embedders.get(model);
    if (!embedder) {
      // A query waits for a person: fail fast (one retry, 5 s each) rather than hang.
      embedder = createEmbedder(model, { ...this.config, timeoutMs: 5000, attempts: 2 });
      this.embedders.set(model, embedder);
    }
    try {
      const [v] = await embedder.embed([text]);
      this.vectors.set(key, v!);
      return v!;
    } catch (err) {
      if (err instanceof EmbeddingError) {
        throw new AppError("embedding_unavailable", `${err.message}; keyword mode still works (mode: "keyword")`);
      }
      throw err;
    }
  }
}

function metadataOf(d: DocumentRow, h: { chunkIndex: number; start: number; end: number }) {
  const m: QueryResult["metadata"] & Record<string, unknown> = {
    sourceId: d.id,
    sourceName: d.name,
    chunkIndex: h.chunkIndex,
    sourceType: d.type,
    start: h.start,
    end: h.end,
  };
  if (d.url) m.url = d.url;
  if (d.fileName) m.fileName = d.fileName;
  return m;
}
