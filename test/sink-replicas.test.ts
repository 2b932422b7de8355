/**
 * The chunk sink when replicas write the same tables (ingest/write/sink.ts, `shared`): what one
 * process remembers of a document's rows (created here, cleared here) says nothing of
 * what another process wrote since, so a replace must delete. Two sinks on two LanceDB
 * connections to one directory stand for two processes.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowOut } from "../src/ingest/job-types";
import { ChunkSink } from "../src/ingest/write/sink";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";

const collectionId = Bun.randomUUIDv7();
const at = (documentId: string) => ({ collectionId, generation: 1, documentId });
const rows = (documentId: string, n: number, tag: string): RowOut[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${documentId}:${i}`,
    documentId,
    chunkIndex: i,
    text: `${tag} ${i}`,
    start: 0,
    end: 1,
    vector: new Float32Array(8).fill(0.25 + i / 100),
  }));

/** Runs `fn` with two sinks (`shared` as given) on one table directory; the rows of `doc` after. */
async function twoProcesses(
  shared: boolean,
  doc: string,
  fn: (here: ChunkSink, there: ChunkSink) => Promise<void>,
): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-sinks-"));
  const conns = [await openLance(dir), await openLance(dir)];
  const stores = conns.map((c) => new VectorStore(c));
  const sinks = stores.map(
    (s) => new ChunkSink(s, async (_c, _g, ids, write) => write(new Set(ids)), undefined, shared),
  );
  try {
    await fn(sinks[0]!, sinks[1]!);
    const stored = await stores[0]!.documentChunks(collectionId, 1, doc, 0, 1_000_000);
    return stored.chunks.map((r) => r.text).sort();
  } finally {
    for (const s of stores) s.close();
    for (const c of conns) c.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const shared of [true, false]) {
  test(`a document created in one process and first written by another (shared: ${shared})`, async () => {
    const texts = await twoProcesses(shared, "doc-a", async (here, there) => {
      here.markNew("doc-a"); // created here...
      await there.replace(at("doc-a"), rows("doc-a", 3, "old")); // ...its first run on the other replica
      await here.replace(at("doc-a"), rows("doc-a", 2, "new")); // then changed, and run here
    });
    // Shared: only the new run's rows. Alone, the sink trusts its memory (one process per table).
    if (shared) expect(texts).toEqual(["new 0", "new 1"]);
    else expect(texts.length).toBe(5);
  });
}

test("a document cleared here and written since by another process is replaced whole", async () => {
  const texts = await twoProcesses(true, "doc-b", async (here, there) => {
    await here.replace(at("doc-b"), rows("doc-b", 2, "first"));
    await here.clear(at("doc-b"));
    await there.replace(at("doc-b"), rows("doc-b", 4, "there"));
    await here.replace(at("doc-b"), rows("doc-b", 1, "here"));
  });
  expect(texts).toEqual(["here 0"]);
});
