/**
 * Live events of a pipeline (docs/API.md, Events) through EventSource: the browser
 * reconnects by itself and sends Last-Event-ID, so nothing is missed in between.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { EventBody, EventType } from "../../ingest/events";

/** One event as the stream sends it. `stream.reset`: events were missed; reload everything. */
export type PipelineEvent = EventBody;

/**
 * The types to listen for. The server's list is a value in a module that reaches the
 * database, so it cannot come into the browser bundle; its type checks this copy instead.
 */
export const EVENT_TYPES = [
  "source.queued",
  "source.processing",
  "source.ready",
  "source.failed",
  "source.deleted",
  "reindex.completed",
  "stream.reset",
] as const satisfies readonly (EventType | "stream.reset")[];
/** Fails to compile when the server gains an event type this list lacks. */
const _everyServerType: [Exclude<EventType, (typeof EVENT_TYPES)[number]>] extends [never] ? true : never = true;

/**
 * Calls `onEvent` for each event of the pipeline while mounted, and with a `stream.reset`
 * each time the stream opens (events between the page's load, or a dropped stream, and
 * the open may be missed). Returns true while
 * the stream is connected; callers keep a slow poll for when it is not.
 */
export function usePipelineEvents(pipelineId: string, onEvent: (e: PipelineEvent) => void): boolean {
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const es = new EventSource(`/api/rag/pipelines/${encodeURIComponent(pipelineId)}/events`);
    const deliver = (m: MessageEvent<string>) => {
      try {
        handler.current({ type: m.type, ...JSON.parse(m.data) } as PipelineEvent);
      } catch {
        // A frame that is not JSON is not ours to act on.
      }
    };
    for (const t of EVENT_TYPES) es.addEventListener(t, deliver as EventListener);
    // What happened before the stream (re)opened and carried no id to resume from is not
    // replayed: each open counts as a reset, so the caller reloads once.
    es.onopen = () => {
      setLive(true);
      handler.current({ type: "stream.reset" } as PipelineEvent);
    };
    // CONNECTING: the browser retries on its own; CLOSED (401, 404): it has given up.
    es.onerror = () => setLive(es.readyState === EventSource.OPEN);
    return () => {
      es.close();
      setLive(false);
    };
  }, [pipelineId]);
  return live;
}

/**
 * Runs `fn` at most once per `ms` however many times `trigger` is called: a burst of
 * events (a thousand sources queued by a re-index) costs one reload, not a thousand.
 */
export function useCoalesced(fn: () => unknown, ms = 1000): () => void {
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      fnRef.current();
    }, ms);
  };
}
