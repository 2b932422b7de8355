import { expect, test } from "bun:test";
import { partitionsForRows } from "../src/vectors/ann";
import { probesForRows } from "../src/vectors/ann-probes";

// Rows an index was trained on, for a number of partitions (partitionsForRows ≈ √rows).
const trainedFor = (partitions: number) => partitions * partitions;

test("a model's IVF_PQ index probes 5% of up to 1,000 partitions, a growing share past them", () => {
  expect(partitionsForRows(trainedFor(1000))).toBe(1000);
  expect(probesForRows(trainedFor(1000), "IvfPq", "model").minimum).toBe(50);
  // The 10M bench table's index (2,516 partitions): 5% found recall@10 0.85, 12.6% 0.96 (ann-probes.ts).
  expect(probesForRows(trainedFor(2516), "IvfPq", "model").minimum).toBe(317);
  // At most 15%, from 3,000 partitions on.
  expect(probesForRows(trainedFor(4096), "IvfPq", "model").minimum).toBe(Math.ceil(4096 * 0.15));
  // Smaller indexes keep the floor of 20 probes.
  expect(probesForRows(trainedFor(300), "IvfPq", "model").minimum).toBe(20);
});

test("a model's IVF_PQ index re-ranks 100 × limit, 60 × from 2,000 partitions", () => {
  // The re-rank reads stored vectors at random: dear on a table larger than the page cache (ann-probes.ts).
  expect(probesForRows(trainedFor(1000), "IvfPq", "model").refine).toBe(100);
  expect(probesForRows(trainedFor(1999), "IvfPq", "model").refine).toBe(100);
  expect(probesForRows(trainedFor(2516), "IvfPq", "model").refine).toBe(60);
});

test("built-in vectors keep their share: their search joins lexical candidates instead", () => {
  const builtin = probesForRows(trainedFor(2516), "IvfPq", "builtin");
  expect(builtin.minimum).toBe(Math.ceil(2516 * 0.05));
  expect(builtin.lexical).toBeGreaterThan(0);
});
