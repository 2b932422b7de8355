/**
 * The benches' recall@k (bench/recall.ts): by id, and with ties counted as ann-benchmarks
 * counts them (a returned row as near as the k-th exact one, within 1e-3, is a hit).
 */
import { describe, expect, test } from "bun:test";
import { exactDistances, RecallTally, recallHits, TIE_EPSILON } from "../bench/recall";

// Rows of two dimensions around the query (1, 0): cosine distance 0, 0.4, 0.4, 0.5.
const ids = ["a", "b", "tie", "miss", "near"];
const all = Float32Array.from([1, 0, 0.6, 0.8, 0.6, -0.8, 0.5, 0.8660254, 0.6 - 0.0004, 0.8]);
const q = Float32Array.from([1, 0]);
const distance = exactDistances(all, ids, 2)(q);
const truth = new Set(["a", "b"]); // the exact top 2, "b" listed where "tie" could have been

describe("bench recall helper", () => {
  test("exact distances are 1 − cosine of the stored rows, by id", () => {
    expect(distance("a")).toBeCloseTo(0, 6);
    expect(distance("b")).toBeCloseTo(0.4, 6);
    expect(distance("tie")).toBeCloseTo(0.4, 6);
    expect(distance("miss")).toBeCloseTo(0.5, 6);
    expect(() => distance("nowhere")).toThrow(/no stored vector/);
  });

  test("a row as near as the k-th counts with ties, not by id", () => {
    expect(recallHits(["a", "tie"], truth, distance, 2)).toEqual({ byId: 1, withTies: 2 });
  });

  test("a row within epsilon of the k-th counts; a farther one is a miss both ways", () => {
    // "near" is a little farther than "b", by less than TIE_EPSILON.
    expect(distance("near") - distance("b")).toBeGreaterThan(0);
    expect(distance("near") - distance("b")).toBeLessThan(TIE_EPSILON);
    expect(recallHits(["a", "near"], truth, distance, 2)).toEqual({ byId: 1, withTies: 2 });
    expect(recallHits(["a", "miss"], truth, distance, 2)).toEqual({ byId: 1, withTies: 1 });
    expect(recallHits(["miss", "tie"], truth, distance, 2, 0)).toEqual({ byId: 0, withTies: 1 });
  });

  test("only the first k returned rows count", () => {
    expect(recallHits(["miss", "a", "b"], truth, distance, 2)).toEqual({ byId: 1, withTies: 1 });
  });

  test("the tally sums queries into both recalls", () => {
    const tally = new RecallTally(2);
    tally.add(recallHits(["a", "tie"], truth, distance, 2));
    tally.add(recallHits(["a", "miss"], truth, distance, 2));
    expect(tally.recall).toBe(0.5);
    expect(tally.recallWithTies).toBe(0.75);
    expect(tally.format()).toBe("0.500 (0.750 with ties)");
  });
});
