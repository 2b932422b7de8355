/**
 * Every table ragd stores in SQLite. Pipelines and knowledge bases are both
 * "collections" (one engine, two faces); their sources/documents are "documents".
 * Timestamps are ISO 8601 strings (UTC), ids are UUIDv7 strings (time-ordered).
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    tier: text("tier", { enum: ["free", "pro", "unlimited"] })
      .notNull()
      .default("free"),
    createdAt: text("created_at").notNull(),
    /** Administrators manage every account and have no pipeline limit (docs/API.md, Administration). */
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
    /** Set while the account is disabled: no sign-in, no session, no key answers. */
    disabledAt: text("disabled_at"),
    lastSignInAt: text("last_sign_in_at"),
    /** Set by an administrator's password reset; cleared when the user picks their own. */
    mustChangePassword: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [uniqueIndex("users_email_unique").on(sql`lower(${t.email})`)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

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
    /** Index generation that queries read; a re-index builds generation+1 and then switches. */
    activeGeneration: integer("active_generation").notNull().default(1),
    /** The embedding model the active generation was built with (queries embed with it). */
    indexModel: text("index_model"),
    /** The generation a re-index is building, with its model; null when none runs. */
    buildingGeneration: integer("building_generation"),
    buildingModel: text("building_model"),
    /** The evaluation set a re-index must not do worse on before it switches; null = switch when built. */
    reindexGate: text("reindex_gate"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("collections_user_kind_idx").on(t.userId, t.kind, t.id)],
);

export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    type: text("type", { enum: ["text", "file", "url", "api"] }).notNull(),
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

export const tasks = sqliteTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id, { onDelete: "cascade" }),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    /** Index generation this task writes into. */
    generation: integer("generation").notNull(),
    status: text("status", { enum: ["queued", "processing", "succeeded", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: text("lease_until"),
    runAfter: text("run_after").notNull(),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // id last: the claim orders by (run_after, id) and stops at the first row, with no sort.
    index("tasks_status_run_idx").on(t.status, t.runAfter, t.id),
    index("tasks_document_idx").on(t.documentId),
  ],
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
  },
  (t) => [uniqueIndex("api_keys_hash_unique").on(t.keyHash), index("api_keys_collection_idx").on(t.collectionId)],
);

/**
 * What happened to a collection's documents, written in the same transaction as the
 * change it reports; the integer id orders the stream and is the SSE event id.
 */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    /** source.queued, source.processing, source.ready, source.failed, source.deleted, reindex.completed */
    type: text("type").notNull(),
    /** No foreign key: a source.deleted event outlives its document. */
    documentId: text("document_id"),
    externalId: text("external_id"),
    status: text("status"),
    /** Extra fields of the event (progress, error), a JSON object. */
    data: text("data").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("events_collection_idx").on(t.collectionId, t.id), index("events_created_idx").on(t.createdAt)],
);

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** The event types it receives, a JSON array; null: all. */
    events: text("events"),
    description: text("description"),
    /** The HMAC secret for X-Ragd-Signature; shown once, at creation. */
    secret: text("secret").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhooks_collection_idx").on(t.collectionId)],
);

/** The outbox: one row per event and webhook, stored before it is sent, kept as the delivery log. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: integer("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The exact JSON body sent (and signed). */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    deliveredAt: text("delivered_at"),
  },
  (t) => [
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
  ],
);

/** One row per try of a delivery: the delivery log keeps every answer, not only the last. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    /** 1 for the first try. */
    attempt: integer("attempt").notNull(),
    at: text("at").notNull(),
    /** The receiver's HTTP status; null when no answer came. */
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);
/** Who did what administrative action when; kept after the accounts it names are gone. */
export const auditLog = sqliteTable("audit_log", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  at: text("at").notNull(),
  /** The administrator's user id; null for the command line. */
  actorId: text("actor_id"),
  /** The administrator's email, or "cli (<os user>)". */
  actor: text("actor").notNull(),
  action: text("action").notNull(),
  /** No foreign key: the entry outlives a deleted user. */
  targetId: text("target_id"),
  targetEmail: text("target_email"),
  /** Extra facts (old and new tier, …), a JSON object. */
  details: text("details").notNull().default("{}"),
});
/** A pipeline's saved test queries, each with the sources that should answer it (docs/API.md, Evaluation). */
export const evalSets = sqliteTable(
  "eval_sets",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** A JSON array of {query, expectedSourceIds}. */
    queries: text("queries").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("eval_sets_collection_idx").on(t.collectionId, t.id)],
);

/** One run of a set (or a re-index's comparison of two generations on it), with its figures. */
export const evalRuns = sqliteTable(
  "eval_runs",
  {
    id: text("id").primaryKey(),
    setId: text("set_id")
      .notNull()
      .references(() => evalSets.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["run", "reindex"] }).notNull(),
    /** The figures, a JSON object (docs/API.md, Evaluation). */
    result: text("result").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("eval_runs_set_idx").on(t.setId, t.id)],
);

/**
 * How a url or api source is fetched again, and what the last fetch learned
 * (docs/API.md, "Refresh and crawl"): one row per url/api source and per crawled
 * page, apart from the document row that every status change rewrites.
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
    /** A crawl source's settings, a JSON object; null for a single page. */
    crawl: text("crawl"),
    /** What the last crawl found, a JSON object (pages, added, removed, skipped…). */
    crawlReport: text("crawl_report"),
    /** A crawled page: the crawl source it belongs to. */
    crawlSourceId: text("crawl_source_id").references(() => documents.id, { onDelete: "cascade" }),
  },
  (t) => [index("source_fetches_due_idx").on(t.nextCheckAt), index("source_fetches_crawl_idx").on(t.crawlSourceId)],
);

export type User = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type Collection = typeof collections.$inferSelect;
export type NewCollection = typeof collections.$inferInsert;
export type DocumentRow = typeof documents.$inferSelect;
export type Task = typeof tasks.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type Webhook = typeof webhooks.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type Tier = User["tier"];
export type AuditRow = typeof auditLog.$inferSelect;
export type EvalSetRow = typeof evalSets.$inferSelect;
export type EvalRunRow = typeof evalRuns.$inferSelect;
export type SourceFetch = typeof sourceFetches.$inferSelect;
