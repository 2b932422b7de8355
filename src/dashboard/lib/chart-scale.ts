/**
 * Scales of the dashboard's charts (components/BarChart.tsx, LineChart.tsx): a rounded
 * top for the y axis, and where a value falls between two edges. No charting library:
 * two small SVG components and this are smaller than any, and need nothing at run time.
 */

/** The smallest 1, 2 or 5 × 10ⁿ at or above `v` (1 for nothing to show). */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * step >= v) return m * step;
  return 10 * step;
}

/** `v` of [from, to] placed on [a, b]. */
export function place(v: number, from: number, to: number, a: number, b: number): number {
  if (to === from) return (a + b) / 2;
  return a + ((v - from) / (to - from)) * (b - a);
}

/** The chart's box (viewBox units): the plot area inside the axis labels. */
export const BOX = { width: 400, height: 170, left: 34, right: 6, top: 8, bottom: 22 };
