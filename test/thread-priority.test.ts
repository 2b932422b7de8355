import { expect, test } from "bun:test";

const linux = process.platform === "linux";

/** The nice value a worker thread ends at, starting at `start` and lowered `by`. */
function niceAfter(start: number, by: number): Promise<{ set: boolean; nice: number }> {
  const worker = new Worker(new URL("./support/nice-worker.ts", import.meta.url).href);
  const answer = new Promise<{ set: boolean; nice: number }>((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(e);
  });
  worker.postMessage({ start, by });
  return answer.finally(() => void worker.terminate());
}

test.skipIf(!linux)("a thread goes `nice` below where it started, not to `nice` itself", async () => {
  expect(await niceAfter(3, 5)).toEqual({ set: true, nice: 8 });
});

test.skipIf(!linux)("the value stops at 19, the lowest priority", async () => {
  expect(await niceAfter(15, 10)).toEqual({ set: true, nice: 19 });
});

test.skipIf(!linux)("0 leaves the thread as it is", async () => {
  expect(await niceAfter(2, 0)).toEqual({ set: false, nice: 2 });
});
