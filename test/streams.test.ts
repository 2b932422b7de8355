/**
 * readCapped (src/tools/streams.ts): a stream read to the end as one array, its parts in
 * order, and a stream past the limit cancelled with the caller's error.
 */
import { expect, test } from "bun:test";
import { readCapped } from "../src/tools/streams";

/** A stream of `parts`, recording whether it was cancelled. */
function streamOf(parts: Uint8Array[]) {
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = parts.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const tooLarge = (): never => {
  throw new Error("too large");
};

test("the parts come back joined, in order, whatever their number", async () => {
  const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251);
  for (const cuts of [[], [1], [65_536, 131_072, 299_999], [10, 20, 30, 40]]) {
    const edges = [0, ...cuts, bytes.length];
    const parts = edges.slice(1).map((end, k) => bytes.slice(edges[k], end));
    const out = await readCapped(streamOf(parts).stream, bytes.length, tooLarge);
    expect(out.byteLength).toBe(bytes.length);
    expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
  }
  expect((await readCapped(null, 10, tooLarge)).byteLength).toBe(0);
  expect((await readCapped(streamOf([]).stream, 10, tooLarge)).byteLength).toBe(0);
});

test("one byte past the limit cancels the stream and throws the caller's error", async () => {
  const { stream, state } = streamOf([new Uint8Array(6), new Uint8Array(5)]);
  await expect(readCapped(stream, 10, tooLarge)).rejects.toThrow("too large");
  expect(state.cancelled).toBe(true);
  const exact = streamOf([new Uint8Array(6), new Uint8Array(4)]);
  expect((await readCapped(exact.stream, 10, tooLarge)).byteLength).toBe(10);
});
