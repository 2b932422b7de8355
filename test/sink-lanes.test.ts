/**
 * Overlapping commits to one table (ingest/sink.ts LANES, vectors/serial-queues.ts): plain
 * appends of new rows may run beside one another; everything else keeps the table to itself.
 */
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { RowOut } from "../src/ingest/job";
import { ChunkSink } from "../src/ingest/sink";
import { openLance } from "../src/vectors/connection";
import { SerialQueues } from "../src/vectors/serial-queues";
import { VectorStore } from "../src/vectors/store";
import { TableCache, tableName } from "../src/vectors/tables";
import { TableWriter } from "../src/vectors/writer";
import { tempDir } from "./support/app";

/** A promise with its resolve, for holding a task until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** `n` one-chunk documents' rows, 8-dimension vectors. */
function docs(tag: string, n: number): { id: string; rows: RowOut[] }[] {
  return Array.from({ length: n }, (_, i) => {
    const documentId = `${tag}-${i}`;
    const vector = new Float32Array(8).fill(0.5);
    return {
      id: documentId,
      rows: [{ id: `${documentId}:0`, documentId, chunkIndex: 0, text: "t", start: 0, end: 1, vector }],
    };
  });
}

describe("shared tasks of the serial queues", () => {
  test("run beside one another, after the exclusive task before them and before the one after", async () => {
    const q = new SerialQueues();
    const order: string[] = [];
    const holdFirst = gate();
    const holdA = gate();
    const first = q.run("t", async () => {
      await holdFirst.wait;
      order.push("first");
    });
    const a = q.runShared("t", async () => {
      order.push("a starts");
      await holdA.wait;
      order.push("a ends");
    });
    const b = q.runShared("t", async () => void order.push("b"));
    const last = q.run("t", async () => void order.push("last"));
    await Bun.sleep(20);
    expect(order).toEqual([]); // both shared tasks wait for the exclusive one before them
    holdFirst.open();
    await first;
    await b; // b ran while a was still held
    expect(order).toEqual(["first", "a starts", "b"]);
    await Bun.sleep(20);
    expect(order).toEqual(["first", "a starts", "b"]); // the exclusive one after waits for a
    holdA.open();
    await Promise.all([a, last]);
    expect(order).toEqual(["first", "a starts", "b", "a ends", "last"]);
  });
});

describe("a table's writer", () => {
  test("overlaps plain appends of new rows, and runs a replacement alone", async () => {
    const dir = tempDir("ragd-lanes-");
    const conn = await openLance(dir);
    const tables = new TableCache(conn);
    const writer = new TableWriter(tables, () => {});
    let active = 0;
    let most = 0;
    const counted =
      <T>(task: () => Promise<T>) =>
      async (): Promise<T> => {
        most = Math.max(most, ++active);
        try {
          return await task();
        } finally {
          active--;
        }
      };
    const { run, runShared } = writer.queues;
    writer.queues.run = <T>(key: string, task: () => Promise<T>) =>
      run.call(writer.queues, key, counted(task)) as Promise<T>;
    writer.queues.runShared = <T>(key: string, task: () => Promise<T>) =>
      runShared.call(writer.queues, key, counted(task)) as Promise<T>;
    const name = tableName(Bun.randomUUIDv7(), 1);
    const rows = (tag: string, n: number) => docs(tag, n).flatMap((d) => d.rows);
    try {
      // The table's creation and a first append into it go alone.
      await writer.replaceDocuments(name, [], rows("a", 5), { appendedAreNew: true });
      await writer.replaceDocuments(name, [], rows("b", 5), { appendedAreNew: true });
      expect(most).toBe(1);
      await Promise.all([
        writer.replaceDocuments(name, [], rows("c", 300), { appendedAreNew: true }),
        writer.replaceDocuments(name, [], rows("d", 300), { appendedAreNew: true }),
        writer.replaceDocuments(name, [], rows("e", 300), { appendedAreNew: true }),
      ]);
      expect(most).toBeGreaterThan(1);
      // A replacement queued behind appends sees them all, and no append beside it.
      most = 0;
      const appended = writer.replaceDocuments(name, [], rows("f", 300), { appendedAreNew: true });
      const replaced = writer.replaceDocuments(name, ["c-0", "f-0"], rows("c", 1));
      await Promise.all([appended, replaced]);
      expect(most).toBe(1);
      const table = (await tables.get(name))!;
      expect(await table.countRows()).toBe(5 + 5 + 900 + 300 - 1);
      expect(await table.countRows("document_id = 'f-0'")).toBe(0);
      expect(await table.countRows("document_id = 'c-0'")).toBe(1);
    } finally {
      tables.closeAll();
      conn.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the sink", () => {
  test("starts a full batch of new documents while the previous commit runs, and stores each row once", async () => {
    const dir = tempDir("ragd-lanes-");
    const conn = await openLance(dir);
    const store = new VectorStore(conn);
    let active = 0;
    let most = 0;
    const replace = store.replaceDocuments.bind(store);
    store.replaceDocuments = (...args) => {
      most = Math.max(most, ++active);
      return replace(...args).finally(() => active--);
    };
    try {
      const sink = new ChunkSink(store, (_c, _g, ids) => new Set(ids));
      const collectionId = Bun.randomUUIDv7();
      const at = (documentId: string) => ({ collectionId, generation: 1, documentId });
      const put = (tag: string, n: number) =>
        docs(tag, n).map((d) => (sink.markNew(d.id), sink.replace(at(d.id), d.rows)));
      // The table is created, then written once more, one commit at a time.
      await Promise.all(put("first", 1));
      await Promise.all(put("second", 1));
      expect(most).toBe(1);
      const running = put("third", 600);
      // 600 more arrive while the commit of the third 600 runs: they need not wait for it.
      await Bun.sleep(0);
      const beside = put("fourth", 600);
      await Promise.all([...running, ...beside]);
      expect(most).toBe(2);
      expect(await store.countRows(collectionId, 1)).toBe(1202);
    } finally {
      store.close();
      conn.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
