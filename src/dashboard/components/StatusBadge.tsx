/** Status badges for pipelines, sources and documents: a colour, a dot and a word. */
import type { PipelineStatus, SourceStatus } from "../api/types";
import { type Key, t } from "../i18n";

type Status = PipelineStatus | SourceStatus;

const LABELS: Record<Status, Key> = {
  empty: "status.empty",
  processing: "status.processing",
  error: "status.error",
  ready: "status.ready",
  awaiting_upload: "status.awaiting_upload",
  queued: "status.queued",
  failed: "status.failed",
};

const TONES: Record<Status, string> = {
  empty: "neutral",
  processing: "busy",
  error: "bad",
  ready: "good",
  awaiting_upload: "warn",
  queued: "busy",
  failed: "bad",
};

/** A badge for a status; unknown values are shown as they are. */
export function StatusBadge({ status }: { status: string }) {
  const s = status as Status;
  return (
    <span class={`badge badge-${TONES[s] ?? "neutral"}`}>
      <span class="badge-dot" aria-hidden="true" />
      {LABELS[s] ? t(LABELS[s]) : status}
    </span>
  );
}

/** True while ragd is still working on something with this status. */
export const isBusy = (status: string): boolean => status === "queued" || status === "processing";
