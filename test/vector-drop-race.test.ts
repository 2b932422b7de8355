/**
 * Searches running on a table while its collection is deleted (src/vectors/tables.ts,
 * TableCache.using): each answers (hits or none) and the process survives. LanceDB frees
 * a closed handle's native state at once; closing it under a running search crashed the
 * whole process with a segmentation fault, as a pipeline deleted under its queries did.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";

const dir = mkdtempSync(join(tmpdir(), "ragd-drop-race-"));
const conn = await openLance(dir);
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = (doc: string, n: number): ChunkRow[] =>
  Array.from({ length: n }, (_, i) => {
    const text = `${doc} note ${i}: harbour tides ferry pier lighthouse keeper ${i % 7}`;
    return {
      id: `${doc}:${i}`,
      documentId: doc,
      chunkIndex: i,
      text,
      start: 0,
      end: text.length,
      vector: embedBuiltin(text),
    };
  });

test("searches racing a collection's deletion answer, and the process lives on", async () => {
  for (let round = 0; round < 12; round++) {
    const store = new VectorStore(conn);
    const c = crypto.randomUUID();
    await store.replaceDocuments(c, 1, ["a"], rows("a", 400));
    const text = "ferry pier tides";
    const searches = Array.from({ length: 24 }, (_, i) =>
      store.search(c, 1, {
        mode: (["hybrid", "keyword", "vector"] as const)[i % 3],
        text,
        vector: embedBuiltin(text),
        topK: 5,
      }),
    );
    await Bun.sleep(round % 4);
    const dropped = store.dropCollection(c);
    const answers = await Promise.all(searches);
    await dropped;
    for (const hits of answers) expect(hits.length === 0 || hits.length === 5).toBe(true);
    expect(await store.search(c, 1, { mode: "vector", text, vector: embedBuiltin(text), topK: 5 })).toEqual([]);
    store.close();
  }
}, 60_000);
