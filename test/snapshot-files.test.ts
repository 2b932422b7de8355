/**
 * Which LanceDB files a backup's snapshot carries (docs/API.md, Backup and restore):
 * those of the recorded table versions, not the index directories that older versions,
 * kept a while after an index refresh, still use.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { NO_REMOVALS, takeSnapshot } from "../src/backup/snapshot";
import { openLance } from "../src/vectors/connection";
import type { TableSearch } from "../src/vectors/search";
import { VectorStore } from "../src/vectors/store";
import { tempDir } from "./support/app";

const WORDS = "river stone lantern orchard copper meadow harbor violet engine summit".split(" ");

const rows = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    // Term count and length vary with i, so that no two rows tie on a keyword score.
    const text = `${`${WORDS[i % 10]} `.repeat(1 + (i % 7))}${"filler ".repeat(i % 23)}note ${i}`;
    return {
      id: `d${i}:0`,
      documentId: `d${i}`,
      chunkIndex: 0,
      text,
      start: 0,
      end: text.length,
      vector: new Float32Array(Array.from({ length: 8 }, (_, j) => Math.sin(i * (j + 1)))),
    };
  });

const indexDirs = (dataDir: string, table: string) => readdirSync(join(dataDir, "lance", `${table}.lance`, "_indices"));

describe("a snapshot's vector-table files", () => {
  test("leave out index directories only older versions use; the copy answers the same", async () => {
    const dir = tempDir("ragd-snapfiles-");
    // The snapshot copies SQLite too: an empty database with the migrations table stands in.
    new Database(join(dir, "ragd.db")).run("CREATE TABLE _migrations (tag TEXT)");
    const vectorStore = new VectorStore(await openLance(dir), { annThreshold: 200 });
    const col = crypto.randomUUID();
    const table = VectorStore.tableName(col, 1);
    let copy: VectorStore | undefined;
    try {
      // Two passes of upkeep over a growing table: the second refreshes the indexes
      // under new directories and keeps the first ones for the versions before it.
      await vectorStore.replaceDocuments(col, 1, [], rows(0, 300));
      await vectorStore.upkeep();
      await vectorStore.replaceDocuments(col, 1, [], rows(300, 300));
      await vectorStore.upkeep();
      const live = indexDirs(dir, table);
      const snap = await takeSnapshot(dir, vectorStore, NO_REMOVALS);
      const copied = indexDirs(snap.dir, table);
      expect(copied.length).toBeGreaterThan(0);
      expect(copied.length).toBeLessThan(live.length);
      expect(live).toEqual(expect.arrayContaining(copied));

      copy = new VectorStore(await openLance(snap.dir));
      const asks: TableSearch[] = [
        { mode: "keyword", text: "lantern orchard", topK: 20 },
        { mode: "vector", text: "", vector: rows(42, 1)[0]!.vector, topK: 20 },
        { mode: "hybrid", text: "copper summit", vector: rows(7, 1)[0]!.vector, topK: 20 },
      ];
      for (const ask of asks) {
        const want = await vectorStore.search(col, 1, ask);
        expect(want.length).toBe(20);
        expect(await copy.search(col, 1, ask)).toEqual(want);
      }
    } finally {
      copy?.close();
      vectorStore.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
