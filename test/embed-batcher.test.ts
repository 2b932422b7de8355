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
  const b = new BatchingEmbedder(inner, 256, 1);
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => b.embed([`text ${i}`, `more ${i}`])));
  expect(calls[0]).toEqual(["text 0", "more 0"]);
  expect(calls.length).toBeLessThanOrEqual(3);
  expect(calls.flat()).toHaveLength(80);
  // each caller gets its own vectors, in its own order
  results.forEach((r, i) => expect([...r.map((v) => v[0])]).toEqual([`text ${i}`.length, `more ${i}`.length]));
});

test("no outgoing call carries more than `fill` texts unless one request alone is bigger", async () => {
  const { inner, calls } = slowEmbedder(20);
  const b = new BatchingEmbedder(inner, 10, 1);
  await Promise.all([b.embed(["a"]), ...Array.from({ length: 9 }, () => b.embed(["x", "y", "z"])), b.embed(Array(25).fill("big"))]);
  for (const c of calls) expect(c.length <= 10 || c.length === 25).toBe(true);
  expect(calls.flat()).toHaveLength(1 + 27 + 25);
});

test("a failed call rejects only the requests it carried", async () => {
  const { inner } = slowEmbedder(10);
  const b = new BatchingEmbedder(inner, 256, 1);
  const first = b.embed(["boom"]);
  const later = b.embed(["fine"]);
  await expect(first).rejects.toThrow("backend said no");
  expect((await later)[0]![0]).toBe(4);
});
