/**
 * What replicas share through PostgreSQL, with two stores on one database standing for
 * two processes: task claims that never take one task twice (even from stores that do
 * not take turns), leases that are renewed and run out, `exclusive` work that one of them
 * runs at a time (and gives up after its time when it hangs), and write transactions
 * that take turns, so event ids follow commit order. SQLite's side (one process) is checked where it differs: `exclusive` always runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openStore } from "../src/db/client";
import { openPgStore, type PgStore } from "../src/db/pg-store";
import { eventsAfter, insertSourceEvent } from "../src/db/repo/events";
import { claimTasks, insertQueuedDocuments, markDocumentsProcessing } from "../src/db/repo/task-batches";
import { claimKey, heldClaims, releaseClaims, renewLeases, requeueExpired } from "../src/db/repo/task-leases";
import { findDocumentById } from "../src/db/repo/documents";
import { findTask, pendingTaskCount } from "../src/db/repo/tasks";
import { dropLostClaims, TaskLeases } from "../src/ingest/tasks/leases";
import { createLogger } from "../src/log";
import { tempDir } from "./support/app";
import { documentRow, seedPipeline } from "./support/engines";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";
import { waitFor } from "./support/wait";

if (!havePostgres) console.log(`replica lease tests skipped: ${NO_POSTGRES}`);

const T = Date.UTC(2032, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

test("on SQLite (one process per file), exclusive work always runs", async () => {
  const dir = tempDir("ragd-excl-");
  const store = openStore(dir);
  try {
    const inner = await store.exclusive("x", () => store.exclusive("x", async () => 7));
    expect(inner).toBe(7);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.skipIf(!havePostgres)("replicas on one PostgreSQL database", () => {
  let pg: TestPostgres;
  let a: PgStore;
  let b: PgStore;
  /** Two stores that do not take turns: the claim statement alone must keep them apart. */
  let c: PgStore;
  let d: PgStore;
  let collectionId = "";

  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase("ragd_replicas");
    a = await openPgStore(url, { shared: true });
    b = await openPgStore(url, { shared: true });
    c = await openPgStore(url);
    d = await openPgStore(url);
    ({ collectionId } = await seedPipeline(a));
  }, 60_000);

  afterAll(async () => {
    for (const s of [a, b, c, d]) await s?.close();
    await pg?.stop();
  });

  const queue = async (n: number) => {
    const rows = Array.from({ length: n }, () => ({ row: documentRow(collectionId, {}, iso(T)), content: "text" }));
    await a.atomically((tx) => insertQueuedDocuments(tx, rows, 1, T));
    return rows.map((r) => r.row.id);
  };

  test("claims racing from two processes never take one task twice, and take them all", async () => {
    await queue(60);
    const taken: string[] = [];
    // Many small claims from both sides at once, each in its own transaction.
    const claimer = (s: PgStore) => async () => {
      for (;;) {
        const got = await s.atomically((tx) => claimTasks(tx, 7, T + 1000, 30_000));
        if (got.length === 0) return;
        expect(got.length).toBeLessThanOrEqual(7);
        taken.push(...got.map((t) => t.id));
      }
    };
    await Promise.all([claimer(c)(), claimer(d)(), claimer(c)(), claimer(d)()]);
    expect(taken.length).toBe(60);
    expect(new Set(taken).size).toBe(60);
    expect(await pendingTaskCount(a.reader, collectionId, 1)).toBe(60); // all processing, none lost
  }, 30_000);

  test("a renewed lease holds; one that ran out goes back to the queue with its document", async () => {
    const [kept, lost] = await queue(2);
    const claimed = await a.atomically((tx) => claimTasks(tx, 100, T + 2000, 30_000));
    const mine = claimed.filter((t) => t.documentId === kept || t.documentId === lost);
    expect(mine.length).toBe(2);
    await a.atomically((tx) => markDocumentsProcessing(tx, [kept!, lost!], T + 2000));
    const keptTask = mine.find((t) => t.documentId === kept)!;
    const lostTask = mine.find((t) => t.documentId === lost)!;
    // Only `kept` is renewed; 40 s later `lost`'s lease (30 s) has run out.
    const renewed = await a.atomically((tx) => renewLeases(tx, [keptTask], T + 2000 + 60_000));
    expect([...renewed]).toEqual([claimKey(keptTask)]);
    const back = await b.atomically((tx) => requeueExpired(tx, T + 2000 + 40_000, 60_000));
    expect(back).toContain(lost!);
    expect(back).not.toContain(kept!);
    expect((await findTask(b.reader, keptTask.id))?.status).toBe("processing");
    expect((await findDocumentById(b.reader, lost!))?.status).toBe("queued");
    expect((await findDocumentById(b.reader, kept!))?.status).toBe("processing");
    // The requeued task is claimable again, its attempts counting on: the first run's ending is refused (outcome.ts).
    const again = await b.atomically((tx) => claimTasks(tx, 100, T + 2000 + 41_000, 30_000));
    const retaken = again.find((t) => t.documentId === lost);
    expect(retaken?.attempts).toBe(2);
    // The first claim is lost: not renewed, not held; the second is both.
    expect(await a.atomically((tx) => renewLeases(tx, [lostTask, retaken!], T + 2000 + 90_000))).toEqual(
      new Set([claimKey(retaken!)]),
    );
    expect(await heldClaims(a.reader, [lostTask, keptTask])).toEqual(new Set([claimKey(keptTask)]));
  }, 30_000);

  test("a lease far beyond a replica's (a server alone's, before a move) goes back to the queue", async () => {
    const [doc] = await queue(1);
    const claimed = await a.atomically((tx) => claimTasks(tx, 100, T + 3000, 30 * 60_000));
    const task = claimed.find((t) => t.documentId === doc)!;
    await a.atomically((tx) => markDocumentsProcessing(tx, [doc!], T + 3000));
    // 30 s later nothing has run out, but a 30-minute lease is not a replica's.
    const back = await b.atomically((tx) => requeueExpired(tx, T + 33_000, 60_000));
    expect(back).toContain(doc!);
    expect((await findTask(b.reader, task.id))?.status).toBe("queued");
  }, 30_000);

  test("a stopping replica's claims go back to the queue at once; a claim lost already stays with its holder", async () => {
    const [mine, theirs] = await queue(2);
    const claimed = (await a.atomically((tx) => claimTasks(tx, 100, T + 4000, 30_000))).filter(
      (t) => t.documentId === mine || t.documentId === theirs,
    );
    await a.atomically((tx) => markDocumentsProcessing(tx, [mine!, theirs!], T + 4000));
    const stale = { ...claimed.find((t) => t.documentId === theirs)!, attempts: 0 }; // another attempt's claim
    const kept = claimed.find((t) => t.documentId === mine)!;
    const back = await a.atomically((tx) => releaseClaims(tx, [kept, stale], T + 5000));
    expect(back).toEqual([mine!]);
    expect((await findTask(b.reader, kept.id))?.status).toBe("queued");
    expect((await findTask(b.reader, stale.id))?.status).toBe("processing");
  }, 30_000);

  test("exclusive work runs in one process at a time, and is free again once it ends", async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const first = a.exclusive("upkeep:t1", async () => {
      await held;
      return "a";
    });
    await Bun.sleep(50);
    expect(await b.exclusive("upkeep:t1", async () => "b")).toBeUndefined();
    // Another name is not held.
    expect(await b.exclusive("upkeep:t2", async () => "b")).toBe("b");
    release();
    expect(await first).toBe("a");
    expect(await b.exclusive("upkeep:t1", async () => "b")).toBe("b");
  }, 30_000);

  test("exclusive work that hangs gives its lock up after its time: the call throws, another runs it", async () => {
    let release = () => {};
    const hung = new Promise<string>((r) => (release = () => r("late")));
    const started = performance.now();
    const first = a.exclusive("upkeep:hung", () => hung, 400);
    await Bun.sleep(50);
    expect(await b.exclusive("upkeep:hung", async () => "b")).toBeUndefined();
    await expect(first).rejects.toThrow("upkeep:hung ran past 0.4 s; its lock is released");
    expect(performance.now() - started).toBeLessThan(5_000);
    // The lock is free for another process; this one skips the work while its late run goes on.
    expect(await b.exclusive("upkeep:hung", async () => "b")).toBe("b");
    expect(await a.exclusive("upkeep:hung", async () => "a again")).toBeUndefined();
    release();
    await hung;
    await Bun.sleep(10);
    expect(await a.exclusive("upkeep:hung", async () => "a again")).toBe("a again");
  }, 30_000);

  test("shared stores' transactions take turns, so event ids follow commit order", async () => {
    const [d1, d2] = await queue(2);
    const before = (await eventsAfter(a.reader, collectionId, 0, 10_000)).at(-1)?.id ?? 0;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const slow = a.atomically(async (tx) => {
      await insertSourceEvent(tx, { type: "source.queued", documentId: d1!, data: "{}", now: iso(T) });
      await held;
    });
    await Bun.sleep(50);
    const fast = b.atomically((tx) =>
      insertSourceEvent(tx, { type: "source.queued", documentId: d2!, data: "{}", now: iso(T) }),
    );
    await Bun.sleep(200);
    // The second writer waits: a reader sees neither event, never the later one alone.
    expect((await eventsAfter(a.reader, collectionId, before, 10)).length).toBe(0);
    release();
    await Promise.all([slow, fast]);
    const seen = await eventsAfter(a.reader, collectionId, before, 10);
    expect(seen.map((e) => e.documentId)).toEqual([d1!, d2!]);
  }, 30_000);

  test("a replica looks for expired leases between its renewals, every couple of seconds", async () => {
    const [doc] = await queue(1);
    const claimed = await b.atomically((tx) => claimTasks(tx, 100, T + 5000, 30_000));
    const dead = claimed.find((t) => t.documentId === doc)!;
    let requeued = 0;
    const leases = new TaskLeases(
      a,
      createLogger("error", () => {}),
      () => [],
      () => {},
      () => requeued++,
    );
    const idle = () => waitFor("the tick's work", () => !(leases as unknown as { busy: boolean }).busy);
    leases.tick(T + 34_000); // a renewal (of nothing) and a look: the dead claim's lease runs to T + 35 s
    await idle();
    expect((await findTask(a.reader, dead.id))?.status).toBe("processing");
    const before = requeued;
    leases.tick(T + 36_500); // no renewal due for 10 s, a look all the same
    await idle();
    expect(requeued).toBe(before + 1);
    expect((await findTask(a.reader, dead.id))?.status).toBe("queued");
  }, 30_000);
});

test("rows of a claim that no longer holds are dropped at the sink's gate; others pass", async () => {
  const dir = tempDir("ragd-gate-");
  const store = openStore(dir);
  try {
    const { collectionId } = await seedPipeline(store);
    const rows = Array.from({ length: 3 }, () => ({ row: documentRow(collectionId, {}, iso(T)), content: "x" }));
    await store.atomically((tx) => insertQueuedDocuments(tx, rows, 1, T));
    const claimed = await store.atomically((tx) => claimTasks(tx, 10, T + 1000, 30_000));
    const [held, taken] = claimed;
    // `taken` was reclaimed by another replica meanwhile: its attempts moved on.
    await store.atomically((tx) => requeueExpired(tx, T + 40_000, 60_000));
    const again = await store.atomically((tx) => claimTasks(tx, 10, T + 41_000, 30_000));
    expect(again.length).toBe(3);
    const ids = claimed.map((t) => t.documentId);
    const alive = new Set(ids);
    // This process still runs `held` and `taken` at their first attempts; the third document is not its job.
    const running = new Map([held!, taken!].map((t) => [t.documentId, t]));
    const renewedHeld = again.find((t) => t.id === held!.id)!;
    running.set(held!.documentId, renewedHeld);
    await store.atomically((tx) => dropLostClaims(tx, alive, running));
    expect(alive).toEqual(new Set([held!.documentId, claimed[2]!.documentId]));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
