/**
 * The writer's WAL checkpoints (src/db/client.ts): a commit copies the WAL back into the
 * database once it holds 16 MiB, not at SQLite's default of 1,000 pages, and the WAL stays
 * bounded near that size however much is written. A new database has 16 KiB pages; one
 * made with SQLite's 4 KiB pages keeps them, and its limits are the same in bytes. Measured on a real SQLite file by the
 * WAL's size, which a checkpoint does not shrink but lets the next commits write over.
 * A server's store checkpoints on a thread of its own instead (src/db/checkpointer.ts):
 * measured by the database file's size, which grows only when pages are copied into it.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { Checkpointer, SAFETY_BYTES } from "../src/db/checkpointer";
import { openStore } from "../src/db/client";
import type { SqliteStore, Store } from "../src/db/store";
import { tempDir } from "./support/app";
import { waitFor } from "./support/wait";

const dir = tempDir("ragd-wal-");
const store = openStore(dir);
const backgroundDir = tempDir("ragd-wal-bg-");
const background = openStore(backgroundDir, { checkpoints: "background" }) as SqliteStore;
afterAll(async () => {
  await store.close();
  await background.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(backgroundDir, { recursive: true, force: true });
});

const PAGE = 16 * 1024;
const MIB = 1024 * 1024;
const walMib = () => statSync(join(dir, "ragd.db-wal")).size / MIB;
const dbMib = (d: string) => statSync(join(d, "ragd.db")).size / MIB;

/** `commits` transactions of about 100 KiB each. */
async function write(commits: number, into: Store = store): Promise<void> {
  const blob = new Uint8Array(100 * 1024).fill(7);
  for (let i = 0; i < commits; i++)
    await into.atomically((tx) => tx.$client.prepare("INSERT INTO blobs (b) VALUES (?)").run(blob));
}

test("the WAL grows to 16 MiB before a commit copies it back, and no further", async () => {
  expect(store.reader.$client.query("PRAGMA page_size").get()).toEqual({ page_size: PAGE });
  await store.atomically((tx) => tx.$client.exec("CREATE TABLE blobs (b BLOB NOT NULL)"));
  await write(120);
  // About 12 MiB, all still in the WAL.
  expect(walMib()).toBeGreaterThan(11.5);
  await write(240);
  // 36 MiB written in all; the file is written over from its start after each copy.
  expect(walMib()).toBeGreaterThan(16);
  expect(walMib()).toBeLessThan(16 + 1);
});

test("a database made with 4 KiB pages keeps them, with the same limits in bytes", async () => {
  const d = tempDir("ragd-wal-4k-");
  try {
    const old = new Database(join(d, "ragd.db"), { create: true });
    old.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE before (x)");
    old.close();
    const s = openStore(d, { checkpoints: "background" });
    expect(s.reader.$client.query("PRAGMA page_size").get()).toEqual({ page_size: 4096 });
    await s.atomically((tx) =>
      expect(tx.$client.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: SAFETY_BYTES / 4096 }),
    );
    await s.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("a server's store copies the WAL back on its own thread, long before a commit would", async () => {
  await background.atomically((tx) => tx.$client.exec("CREATE TABLE blobs (b BLOB NOT NULL)"));
  await background.atomically((tx) =>
    expect(tx.$client.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: SAFETY_BYTES / PAGE }),
  );
  const before = dbMib(backgroundDir);
  await write(120, background);
  // About 12 MiB: far below the writer's own limit, yet in the database file soon after.
  // In one pass or several: a pass may run while the writes go on (under load it did, after 85 of
  // the 120), and its copy restarts the WAL, so no single pass need hold all of them.
  const passes = background.checkpointer!.passes;
  await waitFor(
    "the writes copied into the database file",
    () => passes.count > 0 && passes.copied === passes.frames && dbMib(backgroundDir) > before + 11.5,
    10_000,
  );
}, 20_000);

test("closing a server's store closes the checkpoint thread's connection first", async () => {
  const d = tempDir("ragd-wal-close-");
  try {
    const s = openStore(d, { checkpoints: "background" }) as SqliteStore;
    await s.atomically((tx) => tx.$client.exec("CREATE TABLE blobs (b BLOB NOT NULL)"));
    await write(5, s);
    const closing = s.close();
    // The store's close waits for this: the worker answered that its connection closed.
    expect(await s.checkpointer!.close()).toBe(true);
    await closing;
    const again = openStore(d);
    expect(again.reader.$client.query("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 5 });
    await again.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("a checkpoint thread that cannot open the database says why, and still closes", async () => {
  const errors: string[] = [];
  const c = new Checkpointer(join(dir, "missing", "ragd.db"), (e) => errors.push(e));
  await waitFor("the error", () => errors.length > 0, 5_000);
  expect(errors[0]).toMatch(/unable to open|no such file/i);
  await c.close();
});

test("closing after the checkpoint thread ended does not wait for an answer that cannot come", async () => {
  const c = new Checkpointer(join(dir, "ragd.db"));
  // Ended from outside, as a crash would end it.
  (c as unknown as { worker: Worker }).worker.terminate();
  await Bun.sleep(100);
  const started = performance.now();
  expect(await c.close()).toBe(false);
  expect(performance.now() - started).toBeLessThan(1_000);
});
