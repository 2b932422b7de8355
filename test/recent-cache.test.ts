/**
 * The cache of recently used entries (src/tools/recent-cache.ts): the newest half of its
 * bound always stays, it never holds more than the bound, a hit keeps an entry among the
 * newest, and a set or delete is seen by the next get whichever map held the key.
 */
import { expect, test } from "bun:test";
import { RecentCache } from "../src/tools/recent-cache";

test("the newest half of the bound always stays, and no more than the bound is held", () => {
  const c = new RecentCache<number, number>(10);
  for (let k = 0; k < 100; k++) {
    c.set(k, k * 2);
    // The five newest keys, whatever the moment.
    for (let j = Math.max(0, k - 4); j <= k; j++) expect(c.get(j)).toBe(j * 2);
  }
  // Only the ten newest may be held (a get of a missing key changes nothing).
  for (let k = 0; k < 90; k++) expect(c.get(k)).toBeUndefined();
});

test("an entry found again stays while others come and go", () => {
  const c = new RecentCache<number, number>(4);
  c.set(1, 1);
  for (let k = 100; k < 120; k++) {
    c.set(k, k);
    expect(c.get(1)).toBe(1);
  }
  // Not found again: gone once two more generations passed.
  for (let k = 200; k < 206; k++) c.set(k, k);
  expect(c.get(1)).toBeUndefined();
});

test("set replaces and delete removes, in either generation", () => {
  const c = new RecentCache<string, number>(4);
  c.set("a", 1);
  c.set("b", 2); // the young map is full: a and b age
  c.set("a", 3);
  expect(c.get("a")).toBe(3);
  c.set("c", 4);
  c.delete("b");
  c.delete("c");
  expect([c.get("a"), c.get("b"), c.get("c")]).toEqual([3, undefined, undefined]);
  c.delete("missing");
  expect(c.get("a")).toBe(3);
});
