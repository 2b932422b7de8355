import { expect, test } from "bun:test";
import { BatchingEmbedder } from "../src/embed/batcher";
import { EmbeddingError, type Embedder } from "../src/embed/types";

/** An embedder that records each call and answers after `ms`. */
function slowEmbedder(ms: number) {
  const calls: string[][] = [];
  const inner: Embedder = {
    name: "slow",
    dimensions: async () => 2,
    async embed(texts) {
      calls.push(texts);
      await Bun.sleep(ms);
      if (texts.includes("boom")) throw new EmbeddingError("backend said no", true);
      return texts.map((t) => new Float32Array([t.length, 1]));
    },
  };
  return { inner, calls };
}

test("an idle backend gets a request at once; a busy one gets the waiting requests together", async () => {
  const { inner, calls } = slowEmbedder(30);
  const b = new BatchingEmbedder(inner, 32, 256, 1);
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => b.embed([`text ${i}`, `more ${i}`])));
  expect(calls[0]).toEqual(["text 0", "more 0"]);
  expect(calls.length).toBeLessThanOrEqual(4);
  for (const c of calls.slice(1, -1)) expect(c.length % 32).toBe(0);
  expect(calls.flat()).toHaveLength(80);
  // each caller gets its own vectors, in its own order
  results.forEach((r, i) => {
    expect([...r.map((v) => v[0])]).toEqual([`text ${i}`.length, `more ${i}`.length]);
  });
});

test("while the backend is busy, calls carry whole batches (a request is split if need be), at most `fill` texts", async () => {
  const { inner, calls } = slowEmbedder(20);
  const b = new BatchingEmbedder(inner, 4, 8, 1);
  const big = Array.from({ length: 25 }, (_, i) => `big ${i}`);
  const [first, ...rest] = await Promise.all([
    b.embed(["a"]),
    ...Array.from({ length: 9 }, () => b.embed(["x", "y", "z"])),
    b.embed(big),
  ]);
  expect(calls[0]).toEqual(["a"]); // idle: at once
  for (const c of calls.slice(1, -1)) expect(c.length % 4 === 0 && c.length <= 8).toBe(true);
  expect(calls.flat()).toHaveLength(1 + 27 + 25);
  expect(first![0]![0]).toBe(1);
  // the split request got all 25 vectors, in order
  expect([...rest.at(-1)!.map((v) => v[0])]).toEqual(big.map((t) => t.length));
});

test("a failed call rejects only the requests it carried", async () => {
  const { inner } = slowEmbedder(10);
  const b = new BatchingEmbedder(inner, 32, 256, 1);
  const first = b.embed(["boom"]);
  const later = b.embed(["fine"]);
  await expect(first).rejects.toThrow("backend said no");
  expect((await later)[0]![0]).toBe(4);
});

test("progress: each request hears of its own texts as the backend's batches come back, in its own positions", async () => {
  // A backend that embeds in batches of 2 and reports each batch as it finishes.
  const inner: Embedder = {
    name: "steps",
    dimensions: async () => 1,
    async embed(texts, _signal, onDone) {
      for (let i = 0; i < texts.length; i += 2) {
        await Bun.sleep(5);
        onDone?.(i, Math.min(2, texts.length - i));
      }
      return texts.map(() => new Float32Array([1]));
    },
  };
  const b = new BatchingEmbedder(inner, 2, 8, 1);
  const heard: Record<string, [number, number][]> = { a: [], b: [], c: [] };
  const ask = (name: string, n: number) =>
    b.embed(
      Array.from({ length: n }, (_, i) => `${name}${i}`),
      undefined,
      (from, count) => heard[name]!.push([from, count]),
    );
  // "a" goes alone while the backend is idle; "b" and "c" then share calls.
  await Promise.all([ask("a", 3), ask("b", 3), ask("c", 5)]);
  for (const [name, n] of [
    ["a", 3],
    ["b", 3],
    ["c", 5],
  ] as const) {
    const covered = heard[name]!.flatMap(([from, count]) => Array.from({ length: count }, (_, k) => from + k)).sort(
      (x, y) => x - y,
    );
    expect(covered).toEqual(Array.from({ length: n }, (_, i) => i)); // every text once, nothing else
  }
});
