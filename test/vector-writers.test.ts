// Several processes writing through ragd's VectorStore into one table of a data directory.
// One ragd serves a data directory, but replicas on object storage share their tables
// (test/s3-vectors.test.ts); the race on a table's creation is the same here, and this
// file runs without an object store.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { tempDir } from "./support/app";
import { CHUNKS_PER_DOC, runWriters } from "./support/vector-writer";

let dir: string;
beforeAll(() => {
  dir = tempDir("ragd-writers-");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("processes whose first writes create one table at once all keep their rows", async () => {
  const collectionId = crypto.randomUUID();
  const writers = ["w1", "w2", "w3", "w4"];
  const results = await runWriters(
    writers.map((name) => ({ where: dir, collectionIds: [collectionId], name, docs: 1, replayEvery: 0 })),
  );
  // Before the creation race was handled, all but one failed with "Table … already exists".
  expect(results.flatMap((r) => r.errors)).toEqual([]);
  const store = new VectorStore(await openLance(dir));
  try {
    const counts = await store.documentCounts(collectionId, 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(writers.map((w) => [`${w}-d0`, CHUNKS_PER_DOC])));
    expect(await store.countRows(collectionId, 1)).toBe(writers.length * CHUNKS_PER_DOC);
  } finally {
    store.close();
  }
}, 60_000);
