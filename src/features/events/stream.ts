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
export async function startOf(
  db: Db,
  collectionId: string,
  given: string | null,
): Promise<{ cursor: number; reset: boolean }> {
  const newest = await lastEventId(db);
  if (given === null || !/^\d{1,15}$/.test(given.trim())) return { cursor: newest, reset: false };
  const last = Number(given);
  if (last === 0) return { cursor: 0, reset: false };
  // An id from the future (another data directory, say): start again from what is kept.
  if (last > newest) return { cursor: 0, reset: true };
  const oldest = await oldestEventId(db, collectionId);
  // The client's own event is gone from the log: what followed it may be gone too.
  if (oldest !== null && oldest > last) return { cursor: 0, reset: true };
  return { cursor: last, reset: false };
}

const frameText = (id: number | null, type: string, data: unknown) =>
  `${id !== null ? `id: ${id}\n` : ""}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const frame = (id: number | null, type: string, data: unknown) => encoder.encode(frameText(id, type, data));

/**
 * A `text/event-stream` Response of a collection's events after `lastEventId`
 * (null: only new ones; "0": all that are kept), until `signal` aborts, the
 * client goes away, or `alive` (asked at each heartbeat) says the reader may no longer read.
 * @example return eventStream(db, pipeline.id, request.headers.get("last-event-id"), request.signal);
 */
export async function eventStream(
  db: Db,
  collectionId: string,
  lastEventId: string | null,
  signal: AbortSignal,
  alive: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<Response> {
  const start = await startOf(db, collectionId, lastEventId);
  const oldest = start.reset ? await oldestEventId(db, collectionId) : null;
  let stop = () => {};
  let send = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode("retry: 3000\n\n"));
        if (start.reset)
          controller.enqueue(frame(null, "stream.reset", { lastEventId: Number(lastEventId), oldestEventId: oldest }));
        let ended = false;
        const log = logSender(db, collectionId, start.cursor, controller, () => stop());
        const unsubscribe = notifier.subscribe(collectionId, log.wake);
        const heartbeat = setInterval(() => {
          // A change made by another process (`ragd user disable`) is seen here.
          void alive()
            .then((ok) => {
              if (!ok) return stop();
              if (ended) return;
              controller.enqueue(encoder.encode(": heartbeat\n\n"));
              log.wake();
            })
            .catch(() => stop());
        }, HEARTBEAT_MS);
        send = log.send;
        stop = () => {
          ended = true;
          log.close();
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

/**
 * Sends the collection's events after `cursor` into `controller`, one read of the log at
 * a time (enqueue() may call pull() at once). `behind` says whether the log may hold
 * events not sent yet: set by each wake-up, cleared as a read begins, so a wake-up while
 * a read is out (a commit it may not have seen) brings another read. pull() comes after
 * every chunk the client takes, and a read of the log for each cost the server as much
 * as the events themselves. A read that fails calls `fail`: the stream ends, and the
 * client reconnects with Last-Event-ID.
 */
function logSender(
  db: Db,
  collectionId: string,
  cursor: number,
  controller: ReadableStreamDefaultController<Uint8Array>,
  fail: () => void,
) {
  let behind = true;
  let sending = false;
  let closed = false;
  const read = async () => {
    try {
      // Behind a slow reader, wait for pull() rather than buffer without bound.
      while (behind && !closed && (controller.desiredSize ?? 1) > 0) {
        behind = false;
        const rows = await eventsAfter(db, collectionId, cursor, PAGE);
        if (closed) return;
        if (rows.length === 0) continue;
        // A page goes out as one chunk: the stream's work per chunk is then paid once per
        // read, not once per event (a batch of 500 documents makes 1,500 events).
        let text = "";
        for (const row of rows) text += frameText(row.id, row.type, presentEvent(row));
        cursor = rows.at(-1)!.id;
        controller.enqueue(encoder.encode(text));
        if (rows.length === PAGE) behind = true;
      }
    } finally {
      sending = false;
    }
  };
  const send = () => {
    if (sending || !behind || closed) return;
    sending = true;
    void read().catch(fail);
  };
  return {
    send,
    wake: () => {
      behind = true;
      send();
    },
    close: () => {
      closed = true;
    },
  };
}
