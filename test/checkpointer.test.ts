/**
 * The server's WAL checkpoints run on a worker (db/checkpointer.ts): the writer no longer
 * checkpoints, the database file still receives the WAL's pages, a failed worker hands
 * checkpoints back to the writer, and a close ends the worker with nothing lost.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Checkpointer } from "../src/db/checkpointer";
import { openStore } from "../src/db/client";
import type { Logger } from "../src/log";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary } from "./support/binary";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function quietLog(warnings: string[]): Logger {
  const none = () => {};
  return {
    info: none,
    error: none,
    debug: none,
    warn: (msg: string) => void warnings.push(msg),
    child: () => quietLog(warnings),
  } as unknown as Logger;
}

/** Writes about 4 MB of rows through the store's writer, one transaction each 100 rows. */
async function writeMuch(store: ReturnType<typeof openStore>): Promise<void> {
  await store.atomically(async (tx) => {
    tx.$client.exec("CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT)");
  });
  for (let i = 0; i < 10; i++)
    await store.atomically(async (tx) => {
      const insert = tx.$client.prepare("INSERT INTO filler (body) VALUES (?)");
      for (let j = 0; j < 100; j++) insert.run("x".repeat(4000));
    });
}

function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
    } catch {
      return ""; // the thread ended between the listing and the read
    }
  });
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

test("a server's writer leaves checkpoints to the worker, which copies the WAL into the file", async () => {
  const dir = tempDir("ragd-ckpt-");
  dirs.push(dir);
  const warnings: string[] = [];
  const store = openStore(dir, quietLog(warnings));
  const file = join(dir, "ragd.db");
  const writer = (store as unknown as { writer: { $client: Database } }).writer.$client;
  expect((writer.query("PRAGMA wal_autocheckpoint").get() as Record<string, number>).wal_autocheckpoint).toBe(0);
  const before = statSync(file).size;
  await writeMuch(store);
  // Only a checkpoint writes the database file; the worker looks once a second.
  expect(await until(() => statSync(file).size > before + 3_000_000, 5000)).toBe(true);
  await store.close();
  const again = new Database(file, { readonly: true });
  expect((again.query("SELECT count(*) AS n FROM filler").get() as { n: number }).n).toBe(1000);
  again.close();
  expect(warnings).toEqual([]);
});

test("a CLI's store checkpoints as SQLite does by itself", async () => {
  const dir = tempDir("ragd-ckpt-");
  dirs.push(dir);
  const store = openStore(dir);
  const writer = (store as unknown as { writer: { $client: Database } }).writer.$client;
  expect((writer.query("PRAGMA wal_autocheckpoint").get() as Record<string, number>).wal_autocheckpoint).toBe(1000);
  await store.close();
});

test("a worker that cannot checkpoint hands checkpoints back to the writer", async () => {
  const dir = tempDir("ragd-ckpt-");
  dirs.push(dir);
  const writer = new Database(join(dir, "w.db"), { create: true });
  writer.exec("PRAGMA journal_mode = WAL");
  const errors: string[] = [];
  // A database the worker cannot open: a file inside a directory that does not exist.
  const c = new Checkpointer(writer, join(dir, "missing", "w.db"), (m) => void errors.push(m));
  expect((writer.query("PRAGMA wal_autocheckpoint").get() as Record<string, number>).wal_autocheckpoint).toBe(0);
  expect(await until(() => errors.length > 0, 5000)).toBe(true);
  expect((writer.query("PRAGMA wal_autocheckpoint").get() as Record<string, number>).wal_autocheckpoint).toBe(1000);
  await c.stop();
  writer.close();
});

test("the compiled binary checkpoints on its worker: the new database's pages reach the file", async () => {
  await ensureBinary();
  const dir = tempDir("ragd-ckpt-");
  dirs.push(dir);
  const server = await startBinary(dir);
  try {
    // The migrations' pages are in the WAL at start; SQLite alone would leave them there (under 1,000 pages).
    expect(await until(() => statSync(join(dir, "ragd.db")).size > 100_000, 5000)).toBe(true);
    expect(server.logs()).not.toContain("checkpoints went back");
    // Its thread, by name (the ingestion workers' threads are named "Worker"); Linux shows it in /proc.
    if (process.platform === "linux") expect(threadNames(server.proc.pid)).toContain("ragd-checkpoint");
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
  }
}, 30_000);
