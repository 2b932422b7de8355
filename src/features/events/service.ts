/**
 * Events of a collection for its doors: the SSE stream (docs/API.md, Events) and
 * housekeeping of the log and the delivery log.
 */
import { collectionOwnerActive } from "../../db/repo/admin";
import { pruneDeliveries, pruneEvents } from "../../db/repo/events";
import type { Store } from "../../db/store";
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
  /** Open streams by collection, so that disabling or deleting their owner ends them at once. */
  private readonly open = new Map<string, Set<AbortController>>();

  constructor(
    private readonly db: Store,
    /** Between heartbeats (RAGD_EVENT_HEARTBEAT). */
    private readonly heartbeatMs = 15_000,
  ) {}

  /** Ends every open stream (clients reconnect, with Last-Event-ID, to the next server). */
  closeStreams(): void {
    this.closing.abort();
  }

  /**
   * The `text/event-stream` Response of a collection's events after `lastEventId`;
   * the caller has checked that the client may read this collection. While it is open,
   * `allowed` is asked again with the owner's state (the key's revocation and expiry), and
   * `onEnd` is called once it ends, however it ends.
   * @example app.get("/api/rag/events", ({ request }) => events.eventStream(key.collectionId, request.headers.get("last-event-id"), request.signal))
   */
  eventStream(
    collectionId: string,
    lastEventId: string | null,
    signal: AbortSignal,
    door: { allowed?: () => Promise<boolean>; onEnd?: () => void } = {},
  ): Promise<Response> {
    const own = new AbortController();
    const streams = this.open.get(collectionId) ?? new Set();
    this.open.set(collectionId, streams.add(own));
    const ended = AbortSignal.any([signal, this.closing.signal, own.signal]);
    ended.addEventListener(
      "abort",
      () => {
        streams.delete(own);
        if (streams.size === 0 && this.open.get(collectionId) === streams) this.open.delete(collectionId);
        door.onEnd?.();
      },
      { once: true },
    );
    const allowed = door.allowed ?? (() => Promise.resolve(true));
    const alive = async () => (await collectionOwnerActive(this.db.reader, collectionId)) && (await allowed());
    const options = { alive, heartbeatMs: this.heartbeatMs, onEnd: () => own.abort() };
    return eventStream(this.db.reader, collectionId, lastEventId, ended, options).catch((err: unknown) => {
      // No stream to end later: it is forgotten now.
      own.abort();
      throw err;
    });
  }

  /** Ends the open streams of these collections: their owner was disabled or deleted. */
  closeStreamsOf(collectionIds: string[]): void {
    for (const id of collectionIds) for (const c of this.open.get(id) ?? []) c.abort();
  }

  /** Drops events past the retention window or count, and old settled deliveries; run by housekeeping. */
  async prune(now = Date.now()): Promise<void> {
    const events = new Date(now - EVENT_RETENTION_MS).toISOString();
    await this.db.atomically((tx) => pruneEvents(tx, events, EVENTS_PER_PIPELINE));
    await this.db.atomically((tx) => pruneDeliveries(tx, new Date(now - DELIVERY_RETENTION_MS).toISOString()));
  }
}
