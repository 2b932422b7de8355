/** The Prometheus text that tools/prom.ts writes: labels escaped, buckets cumulative. */
import { expect, test } from "bun:test";
import { Counter, Histogram, labelText, renderGauge } from "../src/tools/prom";

test("label values are escaped: backslash, quote and newline", () => {
  expect(labelText({ a: 'say "hi"', b: "C:\\x", c: "two\nlines" })).toBe(
    'a="say \\"hi\\"",b="C:\\\\x",c="two\\nlines"',
  );
});

test("a counter keeps one series per label set, and a series at 0 when told so", () => {
  const c = new Counter("t_total", "Things.");
  c.inc({ kind: "a" });
  c.inc({ kind: "a" }, 2);
  c.inc({ kind: "b" }, 0);
  expect(c.render()).toEqual([
    "# HELP t_total Things.",
    "# TYPE t_total counter",
    't_total{kind="a"} 3',
    't_total{kind="b"} 0',
  ]);
});

test("histogram buckets are cumulative and end with +Inf, sum and count", () => {
  const h = new Histogram("d_seconds", "Durations.", [0.1, 1]);
  for (const v of [0.05, 0.5, 0.7, 3]) h.observe({ stage: "embed" }, v);
  expect(h.render().slice(2)).toEqual([
    'd_seconds_bucket{stage="embed",le="0.1"} 1',
    'd_seconds_bucket{stage="embed",le="1"} 3',
    'd_seconds_bucket{stage="embed",le="+Inf"} 4',
    'd_seconds_sum{stage="embed"} 4.25',
    'd_seconds_count{stage="embed"} 4',
  ]);
});

test("a gauge without labels has no braces", () => {
  expect(renderGauge("g", "A gauge.", [[{}, 7]]).at(-1)).toBe("g 7");
});
