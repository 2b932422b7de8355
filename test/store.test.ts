/**
 * The metadata store's transactions (src/db/store.ts) on a real SQLite file: bodies that
 * await between statements never interleave, a body that throws leaves nothing, reads
 * outside a transaction see commits only, and misuse throws instead of deadlocking.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openStore } from "../src/db/client";
import { tempDir } from "./support/app";

const dir = tempDir("ragd-store-");
const store = openStore(dir);
await store.atomically((tx) => tx.$client.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)"));
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const put = (tx: typeof store.reader, k: string, v: number) =>
  tx.$client.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v);
const value = (db: typeof store.reader, k: string) =>
  (db.$client.query("SELECT v FROM t WHERE k = ?").get(k) as { v: number } | null)?.v;
const tick = () => new Promise((r) => setTimeout(r, 1));

test("two bodies that await between their statements run one after the other, not interleaved", async () => {
  const order: string[] = [];
  const body = (name: string) => async (tx: typeof store.reader) => {
    order.push(`${name} begins`);
    put(tx, `${name}1`, 1);
    await tick(); // the other body is waiting for the lock meanwhile
    put(tx, `${name}2`, 2);
    order.push(`${name} ends`);
  };
  await Promise.all([store.atomically(body("a")), store.atomically(body("b"))]);
  expect(order).toEqual(["a begins", "a ends", "b begins", "b ends"]);
  expect([value(store.reader, "a2"), value(store.reader, "b2")]).toEqual([2, 2]);
});

test("a body that throws after writing leaves nothing, and the next transaction runs", async () => {
  await expect(
    store.atomically(async (tx) => {
      put(tx, "c1", 1);
      await tick();
      throw new Error("midway");
    }),
  ).rejects.toThrow("midway");
  expect(value(store.reader, "c1")).toBeUndefined();
  await store.atomically((tx) => put(tx, "c2", 2));
  expect(value(store.reader, "c2")).toBe(2);
});

test("a read outside the transaction sees the last commit, not the open transaction's rows", async () => {
  let during: number | undefined = -1;
  const writing = store.atomically(async (tx) => {
    put(tx, "d1", 1);
    await tick();
    during = value(store.reader, "d1");
    expect(value(tx, "d1")).toBe(1); // the body sees its own write through tx
  });
  await writing;
  expect(during).toBeUndefined();
  expect(value(store.reader, "d1")).toBe(1);
});

test("the reader refuses writes, and a nested transaction throws instead of waiting for itself", async () => {
  expect(() => put(store.reader, "e1", 1)).toThrow(/readonly/i);
  await expect(store.atomically(() => store.atomically(() => 1))).rejects.toThrow(/must use its tx/);
  // The refusal left the lock free.
  expect(await store.atomically(() => 2)).toBe(2);
});

test("a timer a body started may open a transaction of its own once the body has committed", async () => {
  let later: Promise<unknown> = Promise.resolve();
  await store.atomically((tx) => {
    put(tx, "f1", 1);
    later = new Promise((resolve, reject) =>
      setTimeout(() => store.atomically((t) => put(t, "f2", 2)).then(resolve, reject), 1),
    );
  });
  await later;
  expect(value(store.reader, "f2")).toBe(2);
});
