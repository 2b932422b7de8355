/**
 * Group commit (src/db/batch.ts) on a real SQLite file: writes of one turn share a
 * transaction, a failing write undoes only itself, and nothing resolves before
 * its commit.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { WriteBatch } from "../src/db/batch";
import { openDb } from "../src/db/client";
import { SqliteStore } from "../src/db/store";
import { tempDir } from "./support/app";

const dir = tempDir("ragd-batch-");
const db = openDb(dir);
const store = new SqliteStore(db, openDb(dir)); // a second connection stands for the reader
db.$client.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (k: string, v: number) => db.$client.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v);
const rows = () => db.$client.query("SELECT k, v FROM t ORDER BY k").all();

test("writes of one turn run inside one transaction, each resolving with its own result", async () => {
  const batch = new WriteBatch(store);
  const inside: boolean[] = [];
  const results = await Promise.all(
    [1, 2, 3].map((v) =>
      batch.run(() => {
        inside.push(db.$client.inTransaction);
        insert(`a${v}`, v);
        return v * 10;
      }),
    ),
  );
  expect(results).toEqual([10, 20, 30]);
  expect(inside).toEqual([true, true, true]);
  expect(db.$client.inTransaction).toBe(false);
  expect(rows()).toEqual([
    { k: "a1", v: 1 },
    { k: "a2", v: 2 },
    { k: "a3", v: 3 },
  ]);
});

test("a write that throws is undone alone; its caller gets the error and the others commit", async () => {
  const batch = new WriteBatch(store);
  const ok1 = batch.run(() => insert("b1", 1));
  const bad = batch.run(() => {
    insert("b2", 2);
    insert("b1", 99); // primary key clash: this write fails after half of it ran
  });
  const ok2 = batch.run(() => insert("b3", 3));
  await ok1;
  await ok2;
  await expect(bad).rejects.toThrow(/UNIQUE/);
  expect(rows().filter((r: any) => r.k.startsWith("b"))).toEqual([
    { k: "b1", v: 1 },
    { k: "b3", v: 3 },
  ]);
});

test("nothing is visible to another connection before the promise resolves, and all of it after", async () => {
  const { Database } = await import("bun:sqlite");
  const other = new Database(`${dir}/ragd.db`, { readonly: true });
  const count = () => (other.query("SELECT count(*) AS n FROM t WHERE k LIKE 'c%'").get() as { n: number }).n;
  const batch = new WriteBatch(store);
  const seen: number[] = [];
  const writes = [1, 2].map((v) =>
    batch.run(() => {
      insert(`c${v}`, v);
      seen.push(count()); // inside the open transaction
    }),
  );
  expect(count()).toBe(0); // queued for the end of this turn, not yet written
  const atFirst = writes[0]!.then(() => count());
  await Promise.all(writes);
  expect(seen).toEqual([0, 0]);
  expect(await atFirst).toBe(2); // the first promise resolves once both are committed
  expect(count()).toBe(2);
  other.close();
});

test("when the transaction as a whole fails, every write of the batch is refused, nothing is kept, and the next batch works", async () => {
  const batch = new WriteBatch(store);
  const first = batch.run(() => insert("d1", 1));
  // A write that ends the transaction under the others' feet, as a full disk can.
  const breaker = batch.run(() => db.$client.exec("ROLLBACK"));
  const last = batch.run(() => insert("d2", 2));
  const settled = await Promise.allSettled([first, breaker, last]);
  expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
  expect(rows().filter((r: any) => r.k.startsWith("d"))).toEqual([]);
  await batch.run(() => insert("d3", 3));
  expect(rows().filter((r: any) => r.k.startsWith("d"))).toEqual([{ k: "d3", v: 3 }]);
});
