/**
 * Keeps the visible page of sources fresh while ragd works on the pipeline: it
 * follows the pipeline's event stream, and polls only while the stream is down.
 */
import { useEffect, useRef } from "preact/hooks";
import type { SourcePage } from "../api/types";
import { isBusy } from "../components/StatusBadge";
import { useCoalesced, usePipelineEvents } from "./events";
import { usePoll } from "./hooks";

/** A source on the page is moving: its status and progress are worth watching closely. */
const NEAR_MS = 1500;
/** Only sources on other pages are moving: the counts and the header still change. */
const FAR_MS = 5000;

/**
 * Reloads the current page (never the whole list) when the pipeline's events say
 * something changed, at most twice a second. While the stream is down it polls
 * instead: every 1.5 s while a source on the page is queued or processing, every
 * 5 s while only sources elsewhere are, and not at all once everything has settled
 * or the tab is hidden. `onCountsChange` runs when the pipeline's per-status counts
 * change (a source finished, failed, was added or deleted), so the page header is
 * re-read only then. Returns whether it polls, and whether the stream is live.
 */
export function useSourceRefresh(
  pipelineId: string,
  page: SourcePage | undefined,
  reload: () => Promise<void>,
  onCountsChange: () => void,
): { polling: boolean; live: boolean } {
  const reloadSoon = useCoalesced(reload, 500);
  const live = usePipelineEvents(pipelineId, reloadSoon);
  const near = !live && (page?.data.some((s) => isBusy(s.status)) ?? false);
  const far = !live && !near && page !== undefined && page.counts.queued + page.counts.processing > 0;
  usePoll(near, reload, NEAR_MS);
  usePoll(far, reload, FAR_MS);

  const seen = useRef<string | undefined>(undefined);
  const counts = page ? JSON.stringify(page.counts) : undefined;
  useEffect(() => {
    if (counts === undefined) return;
    if (seen.current !== undefined && seen.current !== counts) onCountsChange();
    seen.current = counts;
  }, [counts]);
  return { polling: near || far, live };
}
