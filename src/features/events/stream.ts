/**
 * The Server-Sent Events stream of one pipeline's events (docs/API.md, Events). It
 * reads the event log by id, so a reconnect with Last-Event-ID picks up exactly
 * where it stopped; the notifier only says when to read again. Any door (session,
 * API key) that has found the collection answers with `eventStream`.
 */
import type { Db } from "../../db/client";
import { eventsAfter, lastEventId, oldestEventId } from "../../db/repo/events";
import { notifier, presentEvent } from "../../ingest/events";

/** Every 15 s a comment line keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
const PAGE = 500;
const encoder = new TextEncoder();

/** Where a stream starts: after `cursor`; `reset` when events after the client's id may have been pruned. */
export function startOf(db: Db, collectionId: string, given: string | null): { cursor: number; reset: boolean } {
  const newest = lastEventId(db);
  if (given === null || !/^\d{1,15}$/.test(given.trim())) return { cursor: newest, reset: false };
  const last = Number(given);
  if (last === 0) return { cursor: 0, reset: false };
  // An id from the future (another data directory, say): start again from what is kept.
  if (last > newest) return { cursor: 0, reset: true };
  const oldest = oldestEventId(db, collectionId);
  // The client's own event is gone from the log: what followed it may be gone too.
  if (oldest !== null && oldest > last) return { cursor: 0, reset: true };
  return { cursor: last, reset: false };
}

const frame = (id: number | null, type: string, data: unknown) =>
  encoder.encode(`${id !== null ? `id: ${id}\n` : ""}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * A `text/event-stream` Response of a collection's events after `lastEventId`
 * (null: only new ones; "0": all that are kept), until `signal` aborts, the
 * client goes away, or `alive` (asked at each heartbeat) says the reader may no longer read.
 * @example return eventStream(db, pipeline.id, request.headers.get("last-event-id"), request.signal);
 */
export function eventStream(
  db: Db,
  collectionId: string,
  lastEventId: string | null,
  signal: AbortSignal,
  alive: () => boolean = () => true,
): Response {
  const start = startOf(db, collectionId, lastEventId);
  let cursor = start.cursor;
  let stop = () => {};
  let send = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode("retry: 3000\n\n"));
        if (start.reset) {
          const oldest = oldestEventId(db, collectionId);
          controller.enqueue(frame(null, "stream.reset", { lastEventId: Number(lastEventId), oldestEventId: oldest }));
        }
        let sending = false;
        // Whether the log may hold events not sent yet: set by each notification, cleared
        // by a read that found the end. pull() comes after every chunk the client takes,
        // and a read of the log for each cost the server as much as the events themselves.
        let behind = true;
        send = () => {
          // enqueue() may call pull() at once: one reader of the log at a time.
          if (sending || !behind) return;
          sending = true;
          try {
            // Behind a slow reader, wait for pull() rather than buffer without bound.
            while ((controller.desiredSize ?? 1) > 0) {
              const rows = eventsAfter(db, collectionId, cursor, PAGE);
              for (const row of rows) {
                cursor = row.id;
                controller.enqueue(frame(row.id, row.type, presentEvent(row)));
              }
              if (rows.length < PAGE) {
                behind = false;
                break;
              }
            }
          } finally {
            sending = false;
          }
        };
        const wake = () => {
          behind = true;
          send();
        };
        const unsubscribe = notifier.subscribe(collectionId, wake);
        const heartbeat = setInterval(() => {
          // A change made by another process (`ragd user disable`) is seen here.
          if (!alive()) return stop();
          controller.enqueue(encoder.encode(": heartbeat\n\n"));
          wake();
        }, HEARTBEAT_MS);
        stop = () => {
          unsubscribe();
          clearInterval(heartbeat);
          stop = () => {};
          send = () => {};
          try {
            controller.close();
          } catch {}
        };
        signal.addEventListener("abort", () => stop(), { once: true });
        if (signal.aborted) stop();
        else send();
      },
      pull() {
        send();
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 64 },
  );
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
