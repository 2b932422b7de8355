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
  results.forEach((r, i) => expect([...r.map((v) => v[0])]).toEqual([`text ${i}`.length, `more ${i}`.length]));
});

test("while the backend is busy, calls carry whole batches (a request is split if need be), at most `fill` texts", async () => {
  const { inner, calls } = slowEmbedder(20);
  const b = new BatchingEmbedder(inner, 4, 8, 1);
  const big = Array.from({ length: 25 }, (_, i) => `big ${i}`);
  const [first, ...rest] = await Promise.all([b.embed(["a"]), ...Array.from({ length: 9 }, () => b.embed(["x", "y", "z"])), b.embed(big)]);
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
