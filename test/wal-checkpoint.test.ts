/**
 * The writer's WAL checkpoints (src/db/client.ts): a commit copies the WAL back into the
 * database once it holds 4,096 pages, not at SQLite's default of 1,000, and the WAL stays
 * bounded near that size however much is written. Measured on a real SQLite file by the
 * WAL's size, which a checkpoint does not shrink but lets the next commits write over.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../src/db/client";
import { tempDir } from "./support/app";

const dir = tempDir("ragd-wal-");
const store = openStore(dir);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const PAGE = 4096;
const walPages = () => statSync(join(dir, "ragd.db-wal")).size / PAGE;

/** `commits` transactions of about 100 pages each. */
async function write(commits: number): Promise<void> {
  const blob = new Uint8Array(100 * PAGE).fill(7);
  for (let i = 0; i < commits; i++)
    await store.atomically((tx) => tx.$client.prepare("INSERT INTO blobs (b) VALUES (?)").run(blob));
}

test("the WAL grows past SQLite's 1,000 pages to 4,096 before a commit copies it back, and no further", async () => {
  expect(store.reader.$client.query("PRAGMA page_size").get()).toEqual({ page_size: PAGE });
  await store.atomically((tx) => tx.$client.exec("CREATE TABLE blobs (b BLOB NOT NULL)"));
  await write(30);
  // About 3,000 pages, all still in the WAL: the default would have copied them at 1,000.
  expect(walPages()).toBeGreaterThan(2_900);
  await write(60);
  // 9,000 pages written in all; the file is written over from its start after each copy.
  expect(walPages()).toBeGreaterThan(4_096);
  expect(walPages()).toBeLessThan(4_096 + 250);
});
