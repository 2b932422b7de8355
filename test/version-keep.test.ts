/**
 * Which old table versions upkeep's cleanup takes (vectors/version-keep.ts): those older
 * than the store's `keepVersionsMs`, but not the version current when the cleanup began
 * (a search that read it a moment before still reads its files) nor one a reader holds
 * (an export's readChunks). The tests keep no version for their age (`keepVersionsMs: 0`),
 * so only those two rules keep them, and a margin of a second for LanceDB's clock (the
 * tests wait it out). Real LanceDB tables through the store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LanceConnection, openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";
import { DRIFT_MIN_MS } from "../src/vectors/version-keep";

const D = 8;
/**
 * Waits out the margin a cleanup leaves for LanceDB's clock (version-keep.ts): versions
 * committed within it before the one kept, or before the cleanup, stay too.
 */
const past = () => Bun.sleep(DRIFT_MIN_MS + 50);
let dir: string;
let conn: LanceConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-version-keep-"));
  conn = await openLance(dir);
});
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

function rows(doc: string, n = 4): ChunkRow[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `${doc} chunk${i} moraine`;
    const vector = Float32Array.from({ length: D }, (_, j) => Math.sin(i * 7 + j + doc.length) + 1.5);
    return { id: `${doc}:${i}`, documentId: doc, chunkIndex: i, text, start: 0, end: text.length, vector };
  });
}

/** A store that keeps no version for its age, and a table written in `commits` commits. */
async function writtenTable(commits: number) {
  const store = new VectorStore(conn, { keepVersionsMs: 0, annThreshold: 1e9 });
  const collection = crypto.randomUUID();
  for (let c = 0; c < commits; c++) await store.replaceDocuments(collection, 1, [], rows(`d${c}`), {});
  return { store, collection, name: VectorStore.tableName(collection, 1) };
}

/** Every row of `version` of the table, read through a handle of its own. */
async function rowsAt(name: string, version: number): Promise<number> {
  const table = await conn.openTable(name);
  try {
    await table.checkout(version);
    return (await table.query().select(["id"]).toArray()).length;
  } finally {
    table.close();
  }
}

describe("old table versions", () => {
  test("a version a reader holds outlives a cleanup that keeps none for its age", async () => {
    const { store, collection, name } = await writtenTable(4);
    const version = (await store.tableVersion(collection, 1))!;
    // Held as an export holds it, from the moment it reads the version to its last chunk.
    const release = store.holdVersion(collection, 1, version);
    await past();
    // Writes and a compaction meanwhile: the fragments of `version` are rewritten.
    for (let c = 4; c < 8; c++) await store.replaceDocuments(collection, 1, [], rows(`d${c}`), {});
    await store.upkeep();
    let read = 0;
    for await (const slice of store.readChunks(collection, 1, version, 3)) read += slice.length;
    expect(read).toBe(16);
    release();
    // Once let go, it goes with the next cleanup.
    await past();
    await store.replaceDocuments(collection, 1, [], rows("d8"), {});
    await store.upkeep();
    await expect(rowsAt(name, version)).rejects.toThrow();
    store.close();
  });

  test("the version current when a cleanup begins stays; older ones go", async () => {
    const { store, collection, name } = await writtenTable(2);
    const older = (await store.tableVersion(collection, 1))!;
    await past();
    await store.replaceDocuments(collection, 1, [], rows("d2"), {});
    const before = (await store.tableVersion(collection, 1))!;
    await past();
    await store.upkeep();
    // A search that opened `before` just ahead of the compaction still reads its rows.
    expect(await rowsAt(name, before)).toBe(12);
    // Those well before it are gone.
    await expect(rowsAt(name, older)).rejects.toThrow();
    store.close();
  });
});
