/**
 * The Server-Sent Events stream of one pipeline's events (docs/API.md, Events). It
 * reads the event log by id, so a reconnect with Last-Event-ID picks up exactly
 * where it stopped; the notifier only says when to read again. Any door (session,
 * API key) that has found the collection answers with `eventStream`.
 */
import type { Db } from "../../db/client";
import { eventsAfter, lastEventId, newestEventId, oldestEventId } from "../../db/repo/events";
import { notifier, presentEvent } from "../../ingest/events";

/** Every 15 s (RAGD_EVENT_HEARTBEAT) a comment line keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/**
 * How often a stream asks whether its reader may still read: a key revoked or expired, or
 * an owner disabled, through another process ends the stream within this (docs/API.md,
 * Events). One primary-key read per stream each time.
 */
export const CHECK_MS = 2000;
const PAGE = 500;
const encoder = new TextEncoder();

/**
 * Where a stream starts: after `cursor`; `reset` when events after the client's id may have
 * been pruned. Without an id it starts after the pipeline's own newest event (0: it has
 * none), which the first frame names, so a client resumes from there even before its first
 * event; an id of another pipeline's event would later look pruned.
 */
export async function startOf(
  db: Db,
  collectionId: string,
  given: string | null,
): Promise<{ cursor: number; reset: boolean }> {
  if (given === null || !/^\d{1,15}$/.test(given.trim()))
    return { cursor: await newestEventId(db, collectionId), reset: false };
  const last = Number(given);
  const newest = await lastEventId(db);
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

export interface StreamOptions {
  /** Asked every CHECK_MS: false (or a failure) ends the stream. */
  alive?: () => Promise<boolean>;
  heartbeatMs?: number;
  /** Called once the stream has ended, whatever ended it. */
  onEnd?: () => void;
}

/**
 * A `text/event-stream` Response of a collection's events after `lastEventId`
 * (null: only new ones; "0": all that are kept), until `signal` aborts, the
 * client goes away, or `alive` says the reader may no longer read.
 * @example return eventStream(db, pipeline.id, request.headers.get("last-event-id"), request.signal);
 */
export async function eventStream(
  db: Db,
  collectionId: string,
  lastEventId: string | null,
  signal: AbortSignal,
  { alive = () => Promise.resolve(true), heartbeatMs = HEARTBEAT_MS, onEnd }: StreamOptions = {},
): Promise<Response> {
  const start = await startOf(db, collectionId, lastEventId);
  const oldest = start.reset ? await oldestEventId(db, collectionId) : null;
  let stop = () => {};
  let send = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // With an id from the start, an EventSource that reconnects before its first event
        // still sends Last-Event-ID and misses nothing; a reset keeps the client's own id.
        controller.enqueue(encoder.encode(`retry: 3000\n${start.reset ? "" : `id: ${start.cursor}\n`}\n`));
        if (start.reset)
          controller.enqueue(frame(null, "stream.reset", { lastEventId: Number(lastEventId), oldestEventId: oldest }));
        const log = logSender(db, collectionId, start.cursor, controller, () => stop());
        const unsubscribe = notifier.subscribe(collectionId, log.wake);
        const heartbeat = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(": heartbeat\n\n"));
            log.wake();
          } catch {
            stop(); // the stream was errored: its client is gone
          }
        }, heartbeatMs);
        // A change made by another process (`ragd user disable`, a replica's revocation) is seen here.
        const check = setInterval(() => {
          void alive()
            .then((ok) => {
              if (!ok) stop();
            })
            .catch(() => stop());
        }, CHECK_MS);
        send = log.send;
        stop = () => {
          log.close();
          unsubscribe();
          clearInterval(heartbeat);
          clearInterval(check);
          stop = () => {};
          send = () => {};
          try {
            controller.close();
          } catch {}
          onEnd?.();
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
