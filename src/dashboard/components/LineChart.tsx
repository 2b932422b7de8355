/**
 * A line chart in plain SVG: a few series over one time axis, each a polyline with a dot
 * per point (a point alone still shows), and a legend in HTML under it. Colours come from
 * the theme's variables (series 1–3: --accent, --good, --warn), so dark mode follows.
 */
import { BOX, niceMax, place } from "../lib/chart-scale";
import { ChartAxis } from "./ChartAxis";

export interface Series {
  name: string;
  /** x: epoch milliseconds; y: null where the series has no value. */
  points: { x: number; y: number | null; title: string }[];
}

/** `max`: a fixed top for the y axis (1 for scores); otherwise rounded up from the values. */
export function LineChart({
  series,
  label,
  summary,
  max,
  xLabels,
}: {
  series: Series[];
  label: string;
  summary: string;
  max?: number;
  xLabels: [string, string];
}) {
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const top = max ?? niceMax(Math.max(0, ...all.map((p) => p.y ?? 0)));
  const { width, height, left, right, top: pad, bottom } = BOX;
  const x = (v: number) => place(v, x0, x1, left + 4, width - right - 4);
  const y = (v: number) => place(v, 0, top, height - bottom, pad);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${summary}`}>
        <ChartAxis top={top} y={y} />
        {series.map((s, i) => {
          const shown = s.points.filter((p) => p.y !== null);
          return (
            <g key={s.name} class={`chart-series chart-series-${i % 3}`}>
              <polyline points={shown.map((p) => `${x(p.x)},${y(p.y!)}`).join(" ")} />
              {shown.map((p) => (
                <circle key={p.x} cx={x(p.x)} cy={y(p.y!)} r={2.5}>
                  <title>{p.title}</title>
                </circle>
              ))}
            </g>
          );
        })}
        <text class="chart-label" x={left} y={height - 6}>
          {xLabels[0]}
        </text>
        <text class="chart-label" x={width - right} y={height - 6} text-anchor="end">
          {xLabels[1]}
        </text>
      </svg>
      {series.length > 1 && (
        <figcaption class="chart-legend">
          {series.map((s, i) => (
            <span key={s.name} class={`chart-key chart-series-${i % 3}`}>
              {s.name}
            </span>
          ))}
        </figcaption>
      )}
    </figure>
  );
}
