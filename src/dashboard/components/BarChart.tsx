/**
 * A bar chart in plain SVG: one bar per value, the y axis from 0 to a rounded top, the
 * first and last labels under the axis. It scales with its box (a phone's 390 px too)
 * and takes its colours from the theme's variables, so dark mode needs nothing more.
 */
import { BOX, niceMax, place } from "../lib/chart-scale";
import { ChartAxis } from "./ChartAxis";

export interface Bar {
  label: string;
  value: number;
  /** What a pointer over the bar shows. */
  title: string;
}

/** `label` names the chart for screen readers; `summary` says what it shows in words. */
export function BarChart({ bars, label, summary }: { bars: Bar[]; label: string; summary: string }) {
  const top = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const { width, height, left, right, top: pad, bottom } = BOX;
  const plotW = width - left - right;
  const slot = plotW / Math.max(1, bars.length);
  // A few bars stay bars, not blocks.
  const barW = Math.max(1, Math.min(slot * 0.7, 24));
  const y = (v: number) => place(v, 0, top, height - bottom, pad);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${summary}`}>
        <ChartAxis top={top} y={y} />
        {bars.map((b, i) => (
          <rect
            key={b.label}
            class="chart-bar"
            x={left + i * slot + (slot - barW) / 2}
            width={barW}
            y={y(b.value)}
            height={Math.max(0, y(0) - y(b.value))}
          >
            <title>{b.title}</title>
          </rect>
        ))}
        {bars.length > 0 && (
          <>
            <text class="chart-label" x={left} y={height - 6}>
              {bars[0]!.label}
            </text>
            <text class="chart-label" x={width - right} y={height - 6} text-anchor="end">
              {bars[bars.length - 1]!.label}
            </text>
          </>
        )}
      </svg>
    </figure>
  );
}
