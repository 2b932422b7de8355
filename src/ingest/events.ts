/**
 * The event log (docs/API.md, Events): every status change of a source, and the end
 * of a re-index, is written here by the code that makes the change, inside the same
 * transaction, so an event is never lost (it commits with the change) nor invented
 * (it rolls back with it). Each event also puts one outbox row per subscribed webhook
 * in that transaction. Listeners (SSE streams, the webhook deliverer) are woken once
 * the transaction is over; they read the table, so a missed wake-up loses nothing.
 */
import type { Db } from "../db/client";
import {
  collectionsWithWebhooks,
  findEvent,
  insertCollectionEvent,
  insertDelivery,
  insertSourceEvent,
  insertSourceEvents,
  insertSourceEventsCounted,
  webhookTargets,
} from "../db/repo/events";
import type { EventRow } from "../db/schema";

export const EVENT_TYPES = [
  "source.queued",
  "source.processing",
  "source.ready",
  "source.failed",
  "source.deleted",
  "reindex.completed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as clients see it: the SSE `data:` and the webhook body. */
export interface EventBody {
  id: number;
  type: string;
  pipelineId: string;
  sourceId: string | null;
  externalId: string | null;
  status: string | null;
  time: string;
  progress?: { done: number; total: number; unit?: "pages" };
  error?: string;
  /** reindex.completed of a re-index gated on an evaluation set: its decision and figures. */
  evaluation?: Record<string, unknown>;
  /** source.ready of a folder source: what its sync did (added, changed, deleted, unchanged, failed). */
  sync?: Record<string, unknown>;
}

/** The extra fields an event may carry. */
interface Extra {
  progress?: { done: number; total: number; unit?: "pages" };
  error?: string | null;
  evaluation?: Record<string, unknown>;
  sync?: object;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The public JSON of a stored event. */
export function presentEvent(row: EventRow): EventBody {
  const extra = JSON.parse(row.data) as Extra;
  return {
    id: row.id,
    type: row.type,
    pipelineId: row.collectionId,
    sourceId: row.documentId,
    externalId: row.externalId,
    status: row.status,
    time: row.createdAt,
    ...(extra.progress ? { progress: extra.progress } : {}),
    ...(extra.error ? { error: extra.error } : {}),
    ...(extra.evaluation ? { evaluation: extra.evaluation } : {}),
    ...(extra.sync ? { sync: extra.sync as Record<string, unknown> } : {}),
  };
}

/**
 * Records an event about a document, reading its collection, external id and (unless
 * `status` is given) status from its row as this transaction sees it. Call it right
 * after the write it reports, in the same transaction; nothing is recorded for a
 * document that no longer exists.
 * @example await recordSourceEvent(tx, "source.ready", doc.id)
 */
export async function recordSourceEvent(
  db: Db,
  type: EventType,
  documentId: string,
  extra: Extra & { status?: string } = {},
  now = Date.now(),
): Promise<void> {
  const { status, ...rest } = extra;
  const data = rest.progress || rest.error || rest.sync ? JSON.stringify(rest) : "{}";
  const id = await insertSourceEvent(db, { type, documentId, status, data, now: iso(now) });
  if (id !== null) await fanOut(db, id, null);
}

/**
 * Records the same event (no extra fields) about many documents, in one statement,
 * in the order given: as `recordSourceEvent` for each, right after the write it reports.
 * A collection's webhooks are read once for all its events.
 */
export async function recordSourceEvents(
  db: Db,
  type: EventType,
  documentIds: string[],
  now = Date.now(),
): Promise<void> {
  if (documentIds.length === 0) return;
  const hooked = await hookedOf(db);
  // No webhook anywhere (the common case): nothing needs the rows back, and a wake-up of
  // every listener (each looks again) costs less than reading them.
  if (hooked.size === 0) {
    if ((await insertSourceEventsCounted(db, { type, documentIds, now: iso(now) })) > 0) notifier.note(null);
    return;
  }
  const targets = new Map<string, WebhookTarget[]>();
  for (const row of await insertSourceEvents(db, { type, documentIds, now: iso(now) })) {
    notifier.note(row.collectionId);
    if (!hooked.has(row.collectionId)) continue;
    let t = targets.get(row.collectionId);
    if (!t) targets.set(row.collectionId, (t = await webhookTargets(db, row.collectionId)));
    await queueDeliveries(db, row, t);
  }
}

/**
 * Records the end of a re-index: `completed` (the new index answers), `abandoned` (every
 * rebuild failed) or `kept` (its evaluation found it worse). `evaluation` is a gated
 * re-index's comparison (features/evals/gate.ts), shown in the event.
 */
export async function recordReindexEnd(
  db: Db,
  collectionId: string,
  status: "completed" | "abandoned" | "kept",
  now = Date.now(),
  evaluation: Record<string, unknown> | null = null,
): Promise<void> {
  const id = await insertCollectionEvent(db, {
    collectionId,
    type: "reindex.completed",
    status,
    data: evaluation ? JSON.stringify({ evaluation }) : "{}",
    now: iso(now),
  });
  await fanOut(db, id, collectionId);
}

/**
 * Collections with webhooks, per writing connection (the `tx` of every transaction on
 * a store), known in memory so that the common case (none) costs no query per event;
 * loaded on first use, kept by `noteWebhook`. A stale entry (its webhooks since
 * deleted) only costs a query.
 */
const hookedByDb = new WeakMap<object, Set<string>>();
const sessionOf = (db: Db) => (db as unknown as { session: object }).session;

async function hookedOf(db: Db): Promise<Set<string>> {
  let set = hookedByDb.get(sessionOf(db));
  if (!set) {
    const ids = await collectionsWithWebhooks(db);
    // Another caller may have loaded it meanwhile: keep the one already noted into.
    set = hookedByDb.get(sessionOf(db)) ?? new Set(ids);
    hookedByDb.set(sessionOf(db), set);
  }
  return set;
}

/**
 * Tells the event log that a collection has a webhook now: call it with the `tx` that
 * stored it. Before the set is loaded there is nothing to keep: loading reads the table.
 */
export function noteWebhook(db: Db, collectionId: string): void {
  hookedByDb.get(sessionOf(db))?.add(collectionId);
}

/** The outbox rows of one event, and a wake-up for the listeners after the transaction. */
async function fanOut(db: Db, eventId: number, collectionId: string | null): Promise<void> {
  notifier.note(collectionId);
  const hooked = await hookedOf(db);
  if (hooked.size === 0 || (collectionId !== null && !hooked.has(collectionId))) return;
  const row = (await findEvent(db, eventId))!;
  if (!hooked.has(row.collectionId)) return;
  await queueDeliveries(db, row, await webhookTargets(db, row.collectionId));
}

type WebhookTarget = Awaited<ReturnType<typeof webhookTargets>>[number];

/** One outbox row per webhook of the event's collection that takes its type. */
async function queueDeliveries(db: Db, row: EventRow, targets: WebhookTarget[]): Promise<void> {
  let payload: string | null = null;
  for (const t of targets) {
    if (t.events !== null && !(JSON.parse(t.events) as string[]).includes(row.type)) continue;
    payload ??= JSON.stringify(presentEvent(row));
    await insertDelivery(db, {
      id: Bun.randomUUIDv7(),
      webhookId: t.id,
      eventId: row.id,
      eventType: row.type,
      payload,
      now: row.createdAt,
    });
    notifier.noteOutbox();
  }
}

type Listener = () => void;

/**
 * Wakes whoever waits for a collection's events once the transaction that wrote them
 * is over, in the next turn of the event loop: a transaction's body awaits only its
 * statements, which on SQLite all run within the turn, COMMIT included. A wake-up only
 * says "look again".
 */
class EventNotifier {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly outboxListeners = new Set<Listener>();
  private readonly pending = new Set<string>();
  private outbox = false;
  private scheduled = false;

  /** Calls `fn` after events of `collectionId` are written; returns the unsubscribe. */
  subscribe(collectionId: string, fn: Listener): () => void {
    let set = this.listeners.get(collectionId);
    if (!set) this.listeners.set(collectionId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(collectionId);
    };
  }

  /** Calls `fn` after webhook deliveries are queued; returns the unsubscribe. */
  subscribeOutbox(fn: Listener): () => void {
    this.outboxListeners.add(fn);
    return () => this.outboxListeners.delete(fn);
  }

  /** Events of `collectionId` (null: of some collection the writer did not look up) were written. */
  note(collectionId: string | null): void {
    if (this.listeners.size === 0) return;
    if (collectionId === null) for (const id of this.listeners.keys()) this.pending.add(id);
    else if (this.listeners.has(collectionId)) this.pending.add(collectionId);
    else return;
    this.schedule();
  }

  noteOutbox(): void {
    this.outbox = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate: after the transaction has committed (or rolled back), see above.
    setImmediate(() => this.wake());
  }

  private wake(): void {
    this.scheduled = false;
    const ids = [...this.pending];
    this.pending.clear();
    for (const id of ids) for (const fn of this.listeners.get(id) ?? []) fn();
    if (this.outbox) {
      this.outbox = false;
      for (const fn of this.outboxListeners) fn();
    }
  }
}

export const notifier = new EventNotifier();
