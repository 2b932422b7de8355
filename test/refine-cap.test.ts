import { expect, test } from "bun:test";
import { probesForRows } from "../src/vectors/ann-probes";
import { MAX_REFINED_ROWS, refineFor } from "../src/vectors/vector-hits";

test("a re-rank reads at most MAX_REFINED_ROWS candidates, whatever the limit", () => {
  // The top 10 of an IVF_PQ search keep the index's full factor: 1,000 candidates.
  expect(refineFor(100, 10)).toBe(100);
  // Hybrid and reranking ask for 50 or more rows: 100 × 50 would read 5,000.
  expect(refineFor(100, 50)).toBe(MAX_REFINED_ROWS / 50);
  expect(refineFor(100, 50) * 50).toBeLessThanOrEqual(MAX_REFINED_ROWS);
  // A re-rank that is asked for never falls to 1 (no re-rank at all), and none is added.
  expect(refineFor(2, 5_000)).toBe(2);
  expect(refineFor(1, 10)).toBe(1);
});

test("a built-in IVF_PQ table re-ranks no more candidates for a 50-row list than for its top 10", () => {
  // Its lexical candidates bring the rows a hybrid blend ranks first (ann-probes.ts, BUILTIN_REFINED_ROWS).
  const builtin = probesForRows(1_000_000, "IvfPq", "builtin");
  expect(refineFor(builtin.refine, 50, builtin.refinedRows) * 50).toBeLessThanOrEqual(builtin.refine * 10);
  expect(refineFor(builtin.refine, 10, builtin.refinedRows)).toBe(builtin.refine);
  // A model's table keeps the general cap.
  const model = probesForRows(1_000_000, "IvfPq", "model");
  expect(refineFor(model.refine, 50, model.refinedRows)).toBe(MAX_REFINED_ROWS / 50);
});
