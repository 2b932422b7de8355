/**
 * Events of a collection for its doors: the SSE stream (docs/API.md, Events) and
 * housekeeping of the log and the delivery log.
 */
import type { Db } from "../../db/client";
import { pruneDeliveries, pruneEvents } from "../../db/repo/events";
import { eventStream } from "./stream";

/** Events are kept this long … */
export const EVENT_RETENTION_MS = 24 * 3_600_000;
/** … and at most this many per pipeline (the newest). */
export const EVENTS_PER_PIPELINE = 10_000;
/** Settled webhook deliveries are kept this long. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 3_600_000;

export class EventService {
  /** Aborted at shutdown: open streams end, so a graceful stop does not wait for them forever. */
  private readonly closing = new AbortController();

  constructor(private readonly db: Db) {}

  /** Ends every open stream (clients reconnect, with Last-Event-ID, to the next server). */
  closeStreams(): void {
    this.closing.abort();
  }

  /**
   * The `text/event-stream` Response of a collection's events after `lastEventId`;
   * the caller has checked that the client may read this collection.
   * @example app.get("/api/rag/events", ({ request }) => events.eventStream(key.collectionId, request.headers.get("last-event-id"), request.signal))
   */
  eventStream(collectionId: string, lastEventId: string | null, signal: AbortSignal): Response {
    return eventStream(this.db, collectionId, lastEventId, AbortSignal.any([signal, this.closing.signal]));
  }

  /** Drops events past the retention window or count, and old settled deliveries; run by housekeeping. */
  prune(now = Date.now()): void {
    pruneEvents(this.db, new Date(now - EVENT_RETENTION_MS).toISOString(), EVENTS_PER_PIPELINE);
    pruneDeliveries(this.db, new Date(now - DELIVERY_RETENTION_MS).toISOString());
  }
}
