/**
 * The work and what it tells: ingestion tasks, the event stream, and webhooks with
 * their deliveries and attempts.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { collections, documents } from "./pipelines";

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

export type Task = typeof tasks.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type Webhook = typeof webhooks.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
