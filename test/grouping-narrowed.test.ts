/**
 * Which of a grouped search's chosen sources are searched again (retrieval/grouping.ts):
 * only those the pool holds fewer than perSource chunks of, and their chunks replace the
 * pool's while the others keep the pool's.
 */
import { expect, test } from "bun:test";
import { groupBySource, shortSources, withNarrowed } from "../src/retrieval/grouping";
import type { ResolvedSearch } from "../src/retrieval/request";

const hit = (sourceId: string, score: number) => ({ score, metadata: { sourceId } });
const req = (topK: number, perSource?: number) => ({ topK, perSource }) as ResolvedSearch;

// a holds 2 chunks, b 1, c 3 (one past perSource 2), d is beyond topK 3.
const pool = [
  hit("a", 0.9),
  hit("c", 0.85),
  hit("c", 0.8),
  hit("b", 0.7),
  hit("c", 0.65),
  hit("a", 0.6),
  hit("d", 0.5),
];

test("only the chosen sources short of perSource chunks are searched again", () => {
  expect(shortSources(pool, req(3, 2))).toEqual(["b"]);
  expect(shortSources(pool, req(3, 3))).toEqual(["a", "b"]);
  expect(shortSources(pool, req(4, 2))).toEqual(["b", "d"]);
  expect(shortSources(pool, req(3, 1))).toEqual([]);
  expect(shortSources(pool, req(3))).toEqual([]);
});

test("the short sources' chunks come from the narrowed search, the others' from the pool", () => {
  const narrowed = [hit("b", 0.7), hit("b", 0.55)];
  const merged = withNarrowed(pool, req(3, 2), ["b"], narrowed);
  expect(merged.map((h) => [h.metadata.sourceId, h.score])).toEqual([
    ["a", 0.9],
    ["c", 0.85],
    ["c", 0.8],
    ["b", 0.7],
    ["c", 0.65],
    ["a", 0.6],
    ["b", 0.55],
  ]);
  expect(groupBySource(merged, 3, 2).map((h) => h.score)).toEqual([0.9, 0.6, 0.85, 0.8, 0.7, 0.55]);
});
