/**
 * Named queries on the event log and the webhook outbox. The writes run on the
 * ingestion path (several per source), so they are plain SQL, once per dialect
 * (prepared once on SQLite). PostgreSQL returns a bigint id (events.id) read by plain
 * SQL as text: toRow and the inserts make it a number.
 */
import { and, asc, desc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { Db } from "../client";
import { first, isPg, type PlainSql, runSql, selectRows, tables } from "../dialect";
import { once, ph, statement } from "../prepared";
import type { EventRow, Webhook, WebhookAttempt, WebhookDelivery } from "../schema";

/** A statement whose text is the same in both dialects. */
const same = (text: string): PlainSql => ({ sqlite: text, pg: text });

// The document's own row gives the event its collection, external id and status, as
// they are in this very transaction: an event can only say what was written.
const INSERT_SOURCE_EVENT = `INSERT INTO events (collection_id, type, document_id, external_id, status, data, created_at)
  SELECT collection_id, $type, id, external_id, coalesce($status, status), $data, $now FROM documents WHERE id = $id`;
// PostgreSQL has no last insert id: there the new id comes back through RETURNING
// (SQLite runs the bare insert, which costs it a third less per event).
const INSERT_SOURCE_EVENT_RETURNING = same(`${INSERT_SOURCE_EVENT} RETURNING id`);
// Many documents' events in one statement, in the order of the ids given.
const INSERT_SOURCE_EVENTS_BARE: PlainSql = {
  sqlite: `INSERT INTO events (collection_id, type, document_id, external_id, status, data, created_at)
  SELECT d.collection_id, $type, d.id, d.external_id, d.status, '{}', $now
  FROM json_each($ids) j JOIN documents d ON d.id = j.value ORDER BY j.key`,
  pg: `INSERT INTO events (collection_id, type, document_id, external_id, status, data, created_at)
  SELECT d.collection_id, $type, d.id, d.external_id, d.status, '{}', $now
  FROM jsonb_array_elements_text($ids::text::jsonb) WITH ORDINALITY AS j(value, key) JOIN documents d ON d.id = j.value
  ORDER BY j.key`,
};
const INSERT_SOURCE_EVENTS: PlainSql = {
  sqlite: `${INSERT_SOURCE_EVENTS_BARE.sqlite} RETURNING *`,
  pg: `${INSERT_SOURCE_EVENTS_BARE.pg} RETURNING *`,
};
const INSERT_EVENT = `INSERT INTO events (collection_id, type, document_id, external_id, status, data, created_at)
  VALUES ($collectionId, $type, NULL, NULL, $status, $data, $now)`;
const INSERT_EVENT_RETURNING = same(`${INSERT_EVENT} RETURNING id`);
const EVENT_BY_ID = same("SELECT * FROM events WHERE id = $id");
const HOOKED_COLLECTIONS = same("SELECT DISTINCT collection_id AS id FROM webhooks");
const WEBHOOKS_OF = same("SELECT id, events FROM webhooks WHERE collection_id = $collectionId");
const INSERT_DELIVERY =
  same(`INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  VALUES ($id, $webhookId, $eventId, $eventType, $payload, 'pending', 0, $now, $now)`);
const PRUNE_OLD_EVENTS = same("DELETE FROM events WHERE created_at <= $before");
const PRUNE_EXTRA_EVENTS: PlainSql = {
  sqlite: `DELETE FROM events WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY collection_id ORDER BY id DESC) AS n FROM events) WHERE n > $keep)`,
  // PostgreSQL before 16 wants a name for a subquery in FROM.
  pg: `DELETE FROM events WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY collection_id ORDER BY id DESC) AS n FROM events) AS ranked WHERE n > $keep)`,
};
const PRUNE_DELIVERIES = same(
  "DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND created_at <= $before",
);

/** A stored event, as the database returns it (snake_case columns; a bigint id is text on PostgreSQL). */
interface RawEvent {
  id: number | string;
  collection_id: string;
  type: string;
  document_id: string | null;
  external_id: string | null;
  status: string | null;
  data: string;
  created_at: string;
}

const toRow = (r: RawEvent): EventRow => ({
  id: Number(r.id),
  collectionId: r.collection_id,
  type: r.type,
  documentId: r.document_id,
  externalId: r.external_id,
  status: r.status,
  data: r.data,
  createdAt: r.created_at,
});

/**
 * Stores an event about a document (status from its row unless given); returns its
 * id, or null when the row is gone. (RETURNING would cost a third more per event.)
 */
export async function insertSourceEvent(
  db: Db,
  e: { type: string; documentId: string; status?: string | null; data: string; now: string },
): Promise<number | null> {
  const params = { type: e.type, id: e.documentId, status: e.status ?? null, data: e.data, now: e.now };
  if (isPg(db)) {
    const row = first(await selectRows<{ id: number | string }>(db, INSERT_SOURCE_EVENT_RETURNING, params));
    return row ? Number(row.id) : null;
  }
  const r = statement(db, INSERT_SOURCE_EVENT).run(params);
  return r.changes === 0 ? null : Number(r.lastInsertRowid);
}

/**
 * Stores the same event about many documents (status from each row), in one statement;
 * returns the new events, for the documents that still exist.
 */
export async function insertSourceEvents(
  db: Db,
  e: { type: string; documentIds: string[]; now: string },
): Promise<EventRow[]> {
  const rows = await selectRows<RawEvent>(db, INSERT_SOURCE_EVENTS, {
    type: e.type,
    ids: JSON.stringify(e.documentIds),
    now: e.now,
  });
  return rows.map(toRow);
}

/**
 * As insertSourceEvents, returning only how many were stored: RETURNING took two to five
 * times as long as the insert itself (500 events: 2-8 ms against 1-1.5).
 */
export async function insertSourceEventsCounted(
  db: Db,
  e: { type: string; documentIds: string[]; now: string },
): Promise<number> {
  return runSql(db, INSERT_SOURCE_EVENTS_BARE, { type: e.type, ids: JSON.stringify(e.documentIds), now: e.now });
}

/** Stores an event about a whole collection (reindex.completed); returns its id. */
export async function insertCollectionEvent(
  db: Db,
  e: { collectionId: string; type: string; status: string; data: string; now: string },
): Promise<number> {
  if (isPg(db)) return Number(first(await selectRows<{ id: number | string }>(db, INSERT_EVENT_RETURNING, e))!.id);
  return Number(statement(db, INSERT_EVENT).run(e).lastInsertRowid);
}

export async function findEvent(db: Db, id: number): Promise<EventRow | undefined> {
  const r = first(await selectRows<RawEvent>(db, EVENT_BY_ID, { id }));
  return r ? toRow(r) : undefined;
}

/** The collections that have at least one webhook. */
export async function collectionsWithWebhooks(db: Db): Promise<string[]> {
  return (await selectRows<{ id: string }>(db, HOOKED_COLLECTIONS)).map((r) => r.id);
}

/** The webhooks of a collection with the event types each takes (JSON array text, null: all). */
export async function webhookTargets(db: Db, collectionId: string): Promise<{ id: string; events: string | null }[]> {
  return selectRows<{ id: string; events: string | null }>(db, WEBHOOKS_OF, { collectionId });
}

/** Adds a delivery to the outbox, due now. */
export async function insertDelivery(
  db: Db,
  d: { id: string; webhookId: string; eventId: number; eventType: string; payload: string; now: string },
): Promise<void> {
  await runSql(db, INSERT_DELIVERY, d);
}

/** Events of a collection after `afterId`, oldest first. */
export async function eventsAfter(db: Db, collectionId: string, afterId: number, limit: number): Promise<EventRow[]> {
  return await once(db, eventPage).execute({ collectionId, afterId, limit });
}

/** An event stream reads a page after each commit of its pipeline's events: prepared once. */
const eventPage = (db: Db) => {
  const { events } = tables(db);
  return db
    .select()
    .from(events)
    .where(and(eq(events.collectionId, ph("collectionId")), gt(events.id, ph("afterId"))))
    .orderBy(asc(events.id))
    .limit(sql.placeholder("limit"))
    .prepare();
};

/** The oldest event id a collection still keeps; null when it keeps none. */
export async function oldestEventId(db: Db, collectionId: string): Promise<number | null> {
  const { events } = tables(db);
  // min() of a bigint is text on PostgreSQL.
  const row = first(
    await db
      .select({ id: sql<number>`min(${events.id})`.mapWith(Number) })
      .from(events)
      .where(eq(events.collectionId, collectionId)),
  );
  return row?.id ?? null;
}

/** The newest event id of a collection (0 when it has none). */
export async function newestEventId(db: Db, collectionId: string): Promise<number> {
  const { events } = tables(db);
  const row = first(
    await db
      .select({ id: sql<number>`coalesce(max(${events.id}), 0)`.mapWith(Number) })
      .from(events)
      .where(eq(events.collectionId, collectionId)),
  );
  return row?.id ?? 0;
}

/** The newest event id of all (0 when none). */
export async function lastEventId(db: Db): Promise<number> {
  const { events } = tables(db);
  const row = first(await db.select({ id: sql<number>`coalesce(max(${events.id}), 0)`.mapWith(Number) }).from(events));
  return row?.id ?? 0;
}

/** Deletes events older than `before` and, per collection, all but the newest `keep`. */
export async function pruneEvents(db: Db, before: string, keep: number): Promise<number> {
  const old = await runSql(db, PRUNE_OLD_EVENTS, { before });
  const extra = await runSql(db, PRUNE_EXTRA_EVENTS, { keep });
  return old + extra;
}

export async function insertWebhook(db: Db, w: Webhook): Promise<void> {
  await db.insert(tables(db).webhooks).values(w);
}

export async function listWebhooks(db: Db, collectionId: string): Promise<Webhook[]> {
  const { webhooks } = tables(db);
  return await db
    .select()
    .from(webhooks)
    .where(eq(webhooks.collectionId, collectionId))
    .orderBy(asc(webhooks.createdAt));
}

export async function findWebhook(db: Db, collectionId: string, id: string): Promise<Webhook | undefined> {
  const { webhooks } = tables(db);
  return first(
    await db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.collectionId, collectionId), eq(webhooks.id, id))),
  );
}

export async function deleteWebhook(db: Db, id: string): Promise<void> {
  const { webhooks } = tables(db);
  await db.delete(webhooks).where(eq(webhooks.id, id));
}

/** The newest deliveries of a webhook first. */
export async function listDeliveries(db: Db, webhookId: string, limit: number): Promise<WebhookDelivery[]> {
  const { webhookDeliveries } = tables(db);
  return await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventId))
    .limit(limit);
}

/** Pending deliveries due by `now`, oldest first, with their webhook. */
export async function dueDeliveries(
  db: Db,
  now: string,
  limit: number,
): Promise<{ delivery: WebhookDelivery; webhook: Webhook }[]> {
  const { webhooks, webhookDeliveries } = tables(db);
  return await db
    .select({ delivery: webhookDeliveries, webhook: webhooks })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)))
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit);
}

/**
 * Takes a delivery read as due (its `next_attempt_at` was `seen`) for one attempt, by
 * moving its next attempt to `leaseUntil`; true when taken. It fails when the row
 * changed since the read (another process took it, or an attempt was recorded) or is
 * not due by `now`. On PostgreSQL a second claim waits for the first one's commit and
 * then finds the row changed, so of two racing claims one wins. A process that dies
 * mid-attempt leaves the delivery due again at `leaseUntil`.
 */
export async function claimDelivery(
  db: Db,
  id: string,
  seen: string,
  leaseUntil: string,
  now: string,
): Promise<boolean> {
  const { webhookDeliveries: d } = tables(db);
  const taken = await db
    .update(d)
    .set({ nextAttemptAt: leaseUntil })
    .where(and(eq(d.id, id), eq(d.status, "pending"), eq(d.nextAttemptAt, seen), lte(d.nextAttemptAt, now)))
    .returning({ id: d.id });
  return taken.length > 0;
}

/** Records one try and the delivery's new state together: the log never shows one without the other. */
export async function recordAttempt(
  db: Db,
  attempt: Omit<WebhookAttempt, "id">,
  patch: Partial<WebhookDelivery>,
): Promise<void> {
  const { webhookAttempts, webhookDeliveries } = tables(db);
  await db.insert(webhookAttempts).values(attempt);
  await db.update(webhookDeliveries).set(patch).where(eq(webhookDeliveries.id, attempt.deliveryId));
}

/** The tries of these deliveries, first try first, by delivery id. */
export async function attemptsOf(db: Db, deliveryIds: string[]): Promise<Map<string, WebhookAttempt[]>> {
  const out = new Map<string, WebhookAttempt[]>();
  if (deliveryIds.length === 0) return out;
  const { webhookAttempts } = tables(db);
  const rows = await db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));
  for (const r of rows) {
    const list = out.get(r.deliveryId);
    if (list) list.push(r);
    else out.set(r.deliveryId, [r]);
  }
  return out;
}

/** Forgets settled deliveries created before `before`. */
export async function pruneDeliveries(db: Db, before: string): Promise<number> {
  return runSql(db, PRUNE_DELIVERIES, { before });
}

/** One delivery of a webhook; undefined when the webhook has no such delivery. */
export async function findDelivery(db: Db, webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
  const { webhookDeliveries: d } = tables(db);
  return first(
    await db
      .select()
      .from(d)
      .where(and(eq(d.webhookId, webhookId), eq(d.id, id))),
  );
}

/** The newest `limit` events of one document of a collection, newest first (a source's history). */
export async function eventsOfDocument(
  db: Db,
  collectionId: string,
  documentId: string,
  limit: number,
): Promise<EventRow[]> {
  const { events } = tables(db);
  return await db
    .select()
    .from(events)
    .where(and(eq(events.collectionId, collectionId), eq(events.documentId, documentId)))
    .orderBy(desc(events.id))
    .limit(limit);
}
