/** Status badges for pipelines, sources and documents: a colour, a dot and a word. */
import type { PipelineStatus, SourceStatus } from "../api/types";

type Status = PipelineStatus | SourceStatus;

const LABELS: Record<Status, string> = {
  empty: "Empty",
  processing: "Processing",
  error: "Error",
  ready: "Ready",
  awaiting_upload: "Awaiting upload",
  queued: "Queued",
  failed: "Failed",
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
      {LABELS[s] ?? status}
    </span>
  );
}

/** True while ragd is still working on something with this status. */
export const isBusy = (status: string): boolean => status === "queued" || status === "processing";
