/**
 * Collections (pipelines and knowledge bases), their API keys, and their documents
 * (sources) with their texts and fetch state.
 */
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

export const collections = sqliteTable(
  "collections",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["pipeline", "kb"] }).notNull(),
    name: text("name").notNull(),
    description: text("description"),
    chunkingStrategy: text("chunking_strategy").notNull(),
    chunkSize: integer("chunk_size").notNull(),
    chunkOverlap: integer("chunk_overlap").notNull(),
    embeddingModel: text("embedding_model").notNull(),
    embeddingDimensions: integer("embedding_dimensions"),
    vectorProvider: text("vector_provider").notNull(),
    retrievalTopK: integer("retrieval_top_k").notNull(),
    /** Hybrid blend, 0 = keyword only … 1 = vector only; null = the default for the index's embedder. */
    hybridAlpha: real("hybrid_alpha"),
    /** The reranking model queries send their candidates to; null = no reranking. */
    rerankModel: text("rerank_model"),
    /** Language data OCR reads this collection's pictures with, e.g. ["eng","deu"]; null = RAGD_OCR_LANGUAGES. */
    ocrLanguages: text("ocr_languages", { mode: "json" }).$type<string[]>(),
    /** How text is analysed (text/languages.ts): `auto`, a language code, or `legacy` for rows made before the setting. */
    language: text("language").notNull().default("legacy"),
    /** Index generation that queries read; a re-index builds generation+1 and then switches. */
    activeGeneration: integer("active_generation").notNull().default(1),
    /** The embedding model the active generation was built with (queries embed with it). */
    indexModel: text("index_model"),
    /** The language setting the active generation was built with; null = `language`. */
    indexLanguage: text("index_language"),
    /** The generation a re-index is building, with its model; null when none runs. */
    buildingGeneration: integer("building_generation"),
    buildingModel: text("building_model"),
    buildingLanguage: text("building_language"),
    /** The evaluation set a re-index must not do worse on before it switches; null = switch when built. */
    reindexGate: text("reindex_gate"),
    /** Whether searches are written to the query log (tables/insight.ts); off unless the owner turns it on. */
    queryLog: integer("query_log", { mode: "boolean" }).notNull().default(false),
    /** Days a query log row is kept. */
    queryLogDays: integer("query_log_days").notNull().default(30),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("collections_user_kind_idx").on(t.userId, t.kind, t.id)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    /** What the key may do, a JSON array of "query" and "ingest". */
    scopes: text("scopes").notNull().default('["query"]'),
    /** When the key stops working; null: never. */
    expiresAt: text("expires_at"),
    /** A metadata filter (JSON) ANDed into every query the key and its tokens make; null: none. */
    filter: text("filter"),
    /** The HS256 secret its tenant tokens are signed with (keys with the tokens scope); null: none. */
    tokenSecret: text("token_secret"),
  },
  (t) => [uniqueIndex("api_keys_hash_unique").on(t.keyHash), index("api_keys_collection_idx").on(t.collectionId)],
);

export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    type: text("type", { enum: ["text", "file", "url", "api", "folder", "s3", "git"] }).notNull(),
    name: text("name").notNull(),
    /** Characters of a text source's content (kept in document_texts); null for other types. */
    contentLength: integer("content_length"),
    /** A url/api source's URL without `user:password@` (what is shown). */
    url: text("url"),
    /** The `user:password` taken out of the URL: for the fetcher only, never shown or logged. */
    urlCredentials: text("url_credentials"),
    fileName: text("file_name"),
    fileSize: integer("file_size"),
    /** Relative path under data/files once the bytes are stored. */
    filePath: text("file_path"),
    status: text("status", {
      enum: ["awaiting_upload", "queued", "processing", "ready", "failed"],
    }).notNull(),
    error: text("error"),
    chunkCount: integer("chunk_count").notNull().default(0),
    progressDone: integer("progress_done").notNull().default(0),
    progressTotal: integer("progress_total").notNull().default(0),
    /** What progress counts: chunks embedded, or pages recognised while OCR runs. */
    progressUnit: text("progress_unit", { enum: ["chunks", "pages"] })
      .notNull()
      .default("chunks"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    indexedAt: text("indexed_at"),
    /** The client's labels, a flat JSON object (src/core/metadata.ts has the rules). */
    metadata: text("metadata").notNull().default("{}"),
    /** The id the client's own system knows the document by; unique within its collection. */
    externalId: text("external_id"),
    /** SHA-256 of what was indexed (text, file bytes, or fetched text), hex; null until known. */
    contentHash: text("content_hash"),
    /** When OCR read some of the indexed text: {"languages":["eng"],"pages":n} (JSON); else null. */
    ocr: text("ocr"),
  },
  (t) => [
    index("documents_collection_idx").on(t.collectionId, t.id),
    uniqueIndex("documents_external_id_unique").on(t.collectionId, t.externalId),
    index("documents_collection_updated_idx").on(t.collectionId, t.updatedAt),
  ],
);

/**
 * A text source's content, apart from its document row: the row is rewritten on
 * every status and progress change, and reading its later columns would walk the
 * overflow pages of a large text.
 */
export const documentTexts = sqliteTable("document_texts", {
  documentId: text("document_id")
    .primaryKey()
    .references(() => documents.id, { onDelete: "cascade" }),
  content: text("content").notNull(),
});

/**
 * How a url or api source is fetched again, and what the last fetch learned
 * (docs/API.md, "Refresh and crawl"): one row per url/api source and per crawled
 * page, apart from the document row that every status change rewrites. A folder
 * source and its files have one too (docs/API.md, "Folder sources"): a folder is a
 * parent like a crawl, its files its children.
 */
export const sourceFetches = sqliteTable(
  "source_fetches",
  {
    documentId: text("document_id")
      .primaryKey()
      .references(() => documents.id, { onDelete: "cascade" }),
    /** Seconds between re-fetches; null: only when asked. */
    refreshEvery: integer("refresh_every"),
    /** When the scheduler queues the next re-fetch; null when none is scheduled. */
    nextCheckAt: text("next_check_at"),
    lastCheckedAt: text("last_checked_at"),
    lastChangedAt: text("last_changed_at"),
    /** Validators of the last answer, sent back as If-None-Match / If-Modified-Since. */
    etag: text("etag"),
    lastModified: text("last_modified"),
    /** A crawl or folder source's settings, a JSON object; null for a single page. */
    crawl: text("crawl"),
    /** What the last crawl or folder sync found, a JSON object (pages, added, removed, skipped…). */
    crawlReport: text("crawl_report"),
    /** A crawled page or a folder's file: the crawl or folder source it belongs to. */
    crawlSourceId: text("crawl_source_id").references(() => documents.id, { onDelete: "cascade" }),
  },
  (t) => [index("source_fetches_due_idx").on(t.nextCheckAt), index("source_fetches_crawl_idx").on(t.crawlSourceId)],
);

export type Collection = typeof collections.$inferSelect;
export type NewCollection = typeof collections.$inferInsert;
export type ApiKey = typeof apiKeys.$inferSelect;
export type DocumentRow = typeof documents.$inferSelect;
export type SourceFetch = typeof sourceFetches.$inferSelect;
