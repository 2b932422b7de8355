/** The y axis both charts draw (BarChart, LineChart): the 0 line, the top's grid line, their labels. */
import { BOX } from "../lib/chart-scale";
import { formatNumber } from "../lib/format";

export function ChartAxis({ top, y }: { top: number; y: (v: number) => number }) {
  const { width, left, right } = BOX;
  return (
    <>
      <line class="chart-axis" x1={left} x2={width - right} y1={y(0)} y2={y(0)} />
      <line class="chart-grid" x1={left} x2={width - right} y1={y(top)} y2={y(top)} />
      <text class="chart-label" x={left - 4} y={y(top) + 4} text-anchor="end">
        {formatNumber(top)}
      </text>
      <text class="chart-label" x={left - 4} y={y(0) + 4} text-anchor="end">
        0
      </text>
    </>
  );
}
