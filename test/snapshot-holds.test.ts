/**
 * What keeps a backup's snapshot consistent while the server runs (docs/API.md,
 * Backup and restore): the pause of the vector-table writers, and the hold on removals
 * of stored files while they are linked.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DiskFileStore } from "../src/files/disk-store";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { SerialQueues } from "../src/vectors/serial-queues";
import { tempDir } from "./support/app";

describe("the writers' pause", () => {
  test("waits for the running task, and holds queued ones until released", async () => {
    const q = new SerialQueues();
    let finish!: () => void;
    const order: string[] = [];
    const first = q.run("a", () => new Promise<void>((r) => (finish = r)).then(() => void order.push("first")));
    await Bun.sleep(10);
    let paused = false;
    const pausing = q.pause().then((release) => {
      paused = true;
      return release;
    });
    const second = q.run("b", async () => void order.push("second"));
    await Bun.sleep(30);
    expect(paused).toBe(false); // "first" still runs
    finish();
    const release = await pausing;
    await first;
    await Bun.sleep(30);
    expect(order).toEqual(["first"]); // "second" is held
    release();
    await second;
    expect(order).toEqual(["first", "second"]);
  });

  test("no table changes version while frozen, and queued writes land after", async () => {
    const dir = tempDir("ragd-freeze-");
    const vectorStore = new VectorStore(await openLance(dir));
    try {
      const col = crypto.randomUUID();
      const row = (i: number) => ({
        id: `d${i}:0`,
        documentId: `d${i}`,
        chunkIndex: 0,
        text: `text ${i}`,
        start: 0,
        end: 6,
        vector: new Float32Array([1, i, 0]),
      });
      await vectorStore.replaceDocuments(col, 1, ["d0"], [row(0)]);
      let queued: Promise<void> | undefined;
      const seen = await vectorStore.frozen(async () => {
        const before = await vectorStore.tableVersions();
        queued = vectorStore.replaceDocuments(col, 1, ["d1"], [row(1)]);
        await Bun.sleep(300);
        return { before, after: await vectorStore.tableVersions(), rows: await vectorStore.countRows(col, 1) };
      });
      expect(seen.after).toEqual(seen.before);
      expect(seen.rows).toBe(1);
      await queued;
      expect(await vectorStore.countRows(col, 1)).toBe(2);
    } finally {
      vectorStore.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("stored files during a snapshot", () => {
  test("removals wait while held (by every holder), then run", async () => {
    const dir = tempDir("ragd-hold-");
    try {
      const files = new DiskFileStore(dir);
      const [col, doc] = [crypto.randomUUID(), crypto.randomUUID()];
      const path = files.pathOf(col, doc);
      mkdirSync(join(dir, "files", col), { recursive: true });
      writeFileSync(path, "bytes");
      const first = files.holdRemovals();
      const second = files.holdRemovals();
      await files.remove(col, doc);
      expect(existsSync(path)).toBe(true);
      first();
      first(); // a second call of the same release changes nothing
      expect(existsSync(path)).toBe(true);
      second();
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
