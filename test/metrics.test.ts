/**
 * The ranking figures of the evaluation API and the benchmarks (src/retrieval/metrics.ts),
 * against values worked out by hand.
 */
import { describe, expect, test } from "bun:test";
import { scoreRanking } from "../src/features/evals/evaluate";
import {
  binaryRelevance,
  distinctInOrder,
  hitAt,
  meanOf,
  ndcg,
  recall,
  reciprocalRank,
} from "../src/retrieval/metrics";

// Ranking a b c d; b and d are relevant.
// DCG@10 = 1/log2(3) + 1/log2(5) = 0.630930 + 0.430677 = 1.061606
// IDCG@10 = 1/log2(2) + 1/log2(3) = 1.630930, so nDCG@10 = 0.650921.
const ranked = ["a", "b", "c", "d"];
const rel = binaryRelevance(["d", "b"]);

describe("ranking figures", () => {
  test("binary relevance, worked by hand", () => {
    expect(hitAt(ranked, rel, 1)).toBe(0);
    expect(hitAt(ranked, rel, 2)).toBe(1);
    expect(reciprocalRank(ranked, rel)).toBe(0.5);
    expect(ndcg(ranked, rel, 10)).toBeCloseTo(0.650921, 6);
    expect(ndcg(ranked, rel, 2)).toBeCloseTo(0.63093 / 1.63093, 6);
    expect(recall(ranked, rel, 2)).toBe(0.5);
  });

  test("graded relevance (the benchmarks' qrels): gains 2 and 1", () => {
    // DCG = 2/log2(3) + 1/log2(5) = 1.692536; IDCG = 2 + 1/log2(3) = 2.630930.
    expect(
      ndcg(
        ranked,
        new Map([
          ["b", 2],
          ["d", 1],
        ]),
        10,
      ),
    ).toBeCloseTo(0.643322, 6);
  });

  test("nothing relevant ranked, or nothing relevant at all, scores 0", () => {
    expect(reciprocalRank(["x", "y"], rel)).toBe(0);
    expect(ndcg(["x", "y"], rel, 10)).toBe(0);
    expect(ndcg(ranked, new Map(), 10)).toBe(0);
    expect(hitAt([], rel, 1)).toBe(0);
  });

  test("a source ranks where its best chunk ranks", () => {
    expect(distinctInOrder(["s2", "s1", "s2", "s3", "s1"])).toEqual(["s2", "s1", "s3"]);
  });

  test("one query's figures and their mean", () => {
    const one = scoreRanking(["x", "y"], ["y"]);
    expect(one).toEqual({ hitAt1: 0, hitAtK: 1, mrr: 0.5, ndcgAt10: expect.closeTo(0.63093, 6) });
    const two = scoreRanking(["y"], ["y"]);
    expect(two).toEqual({ hitAt1: 1, hitAtK: 1, mrr: 1, ndcgAt10: 1 });
    const mean = meanOf([one, two], ["hitAt1", "mrr"] as const);
    expect(mean).toEqual({ hitAt1: 0.5, mrr: 0.75 });
  });
});
