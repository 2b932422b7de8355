/** A labelled progress bar that screen readers can read. */
import { formatPercent } from "../lib/format";

interface Props {
  value: number;
  max: number;
  label: string;
  /** Text shown beside the bar, e.g. "3 of 10 chunks". */
  text?: string;
}

/** A determinate bar; with max 0 it shows as indeterminate. */
export function ProgressBar({ value, max, label, text }: Props) {
  const pct = max > 0 ? Math.min(100, Math.round((value / max) * 100)) : undefined;
  return (
    <div class="progress-wrap">
      <div
        class={`progress${pct === undefined ? " progress-indeterminate" : ""}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div class="progress-fill" style={{ width: pct === undefined ? undefined : `${pct}%` }} />
      </div>
      <span class="progress-text muted">{text ?? (pct === undefined ? "" : formatPercent(pct))}</span>
    </div>
  );
}
