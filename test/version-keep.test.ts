/**
 * Which old table versions upkeep's cleanup takes (vectors/version-keep.ts): those older
 * than the store's `keepVersionsMs`, but not the version current when the upkeep began
 * (a search that read it a moment before still reads its files) nor one a reader holds
 * (an export's readChunks). The store here keeps no version for its age and prunes at
 * every upkeep, so only those two rules keep them, and the margin for LanceDB's clock
 * (versions committed within PRUNE_MARGIN_MS before a kept one stay too: the test waits it
 * out). Real LanceDB tables through the store; the pruning's two optimize() calls are
 * checked on a table that records them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LanceConnection, openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";
import { NO_PRUNE, PRUNE_MARGIN_MS, Pruning } from "../src/vectors/version-keep";

const D = 8;
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

/** Waits out the margin a cleanup leaves for LanceDB's clock. */
const past = () => Bun.sleep(PRUNE_MARGIN_MS + 50);

function rows(doc: string, n = 4): ChunkRow[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `${doc} chunk${i} moraine`;
    const vector = Float32Array.from({ length: D }, (_, j) => Math.sin(i * 7 + j + doc.length) + 1.5);
    return { id: `${doc}:${i}`, documentId: doc, chunkIndex: i, text, start: 0, end: text.length, vector };
  });
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
  test("a held version and the one current when upkeep began outlive a cleanup that keeps none for its age", async () => {
    const store = new VectorStore(conn, { keepVersionsMs: 0, pruneVersionsEveryMs: 0, annThreshold: 1e9 });
    const [held, read] = [crypto.randomUUID(), crypto.randomUUID()];
    const write = (c: string, doc: string) => store.replaceDocuments(c, 1, [], rows(doc), {});
    const version = async (c: string) => (await store.tableVersion(c, 1))!;
    for (let d = 0; d < 4; d++) await write(held, `d${d}`);
    for (let d = 0; d < 2; d++) await write(read, `d${d}`);
    // Held as an export holds it, from the moment it reads the version to its last chunk.
    const heldVersion = await version(held);
    const release = store.holdVersion(held, 1, heldVersion);
    const older = await version(read);
    await past();
    // Writes meanwhile: the held version's fragments are compacted away by the upkeep below.
    for (let d = 4; d < 8; d++) await write(held, `d${d}`);
    await write(read, "d2");
    // `read`'s version when upkeep begins: a search may have opened it a moment before.
    const current = await version(read);
    await past();
    await store.upkeep();

    let chunks = 0;
    for await (const slice of store.readChunks(held, 1, heldVersion, 3)) chunks += slice.length;
    expect(chunks).toBe(16);
    expect(await rowsAt(VectorStore.tableName(read, 1), current)).toBe(12);
    await expect(rowsAt(VectorStore.tableName(read, 1), older)).rejects.toThrow();

    // Once let go, the held version goes with the next cleanup.
    release();
    await past();
    await write(held, "d8");
    await store.upkeep();
    await expect(rowsAt(VectorStore.tableName(held, 1), heldVersion)).rejects.toThrow();
    store.close();
  });
});

describe("pruning", () => {
  /** A table that records the dates optimize() is given; each compacts `merging` fragments. */
  function recording(versions: { version: number; timestamp: Date }[], current: number, merging = 0) {
    const dates: Date[] = [];
    const table = {
      version: async () => current,
      listVersions: async () => versions.map((v) => ({ ...v, metadata: {} })),
      optimize: async (o: { cleanupOlderThan: Date }) => {
        dates.push(o.cleanupOlderThan);
        return { compaction: { fragmentsRemoved: merging } };
      },
    } as unknown as Table;
    return { table, dates };
  }
  const now = Date.now();
  const versions = [1, 2, 3].map((v) => ({ version: v, timestamp: new Date(now - (4 - v) * 60_000) }));

  test("dates the removal before the current and held versions' commits, after a compaction with nothing to do", async () => {
    const { table, dates } = recording(versions, 3);
    const pruning = new Pruning(30_000, 10_000);
    const cutoff = await pruning.planned("t", table, [2]);
    // Held version 2 was committed two minutes ago: the date is no later.
    expect(cutoff!.getTime()).toBe(versions[1]!.timestamp.getTime());
    await pruning.prune("t", table, cutoff!);
    expect(dates.map((d) => d.getTime())).toEqual([NO_PRUNE.getTime(), cutoff!.getTime() - PRUNE_MARGIN_MS]);
    // Within the interval, no removal is planned.
    expect(await pruning.planned("t", table, [])).toBeNull();
  });

  test("waits while the table still has fragments to compact", async () => {
    const { table, dates } = recording(versions, 3, 2);
    const pruning = new Pruning(30_000, 10_000);
    const cutoff = await pruning.planned("t", table, []);
    await pruning.prune("t", table, cutoff!);
    expect(dates.every((d) => d.getTime() === NO_PRUNE.getTime())).toBe(true);
    // Not pruned, so it is planned again at the next upkeep.
    expect(await pruning.planned("t", table, [])).not.toBeNull();
  });
});
