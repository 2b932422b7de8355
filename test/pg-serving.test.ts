/**
 * The serving lock after its session ends (a restart of PostgreSQL ends them all), with
 * stores in this process standing for servers: a server finds its lock gone and claims
 * it again; finds it taken by another server; or finds its own earlier session still
 * holding it (a connection dropped on the way, its backend not yet gone), which it ends
 * instead of mistaking it for another server.
 */
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openPgStore, type PgStore } from "../src/db/pg-store";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";

if (!havePostgres) console.log(`serving lock tests skipped: ${NO_POSTGRES}`);

const SERVING = [0x72616764, 1] as const;

describe.skipIf(!havePostgres)("the serving lock once its session ends", () => {
  let pg: TestPostgres;
  let url = "";
  let admin: SQL;
  let n = 0;

  beforeAll(async () => {
    pg = await startPostgres();
    admin = new SQL(await pg.createDatabase("serving_admin"), { max: 1 });
  }, 120_000);

  afterAll(async () => {
    await admin?.close();
    await pg?.stop();
  }, 30_000);

  /** A fresh database and a server alone on it. */
  async function serverAlone(): Promise<PgStore> {
    url = await pg.createDatabase(`serving_${++n}`);
    const store = await openPgStore(url);
    expect(await store.claimServing("alone")).toBe(true);
    return store;
  }

  /** The backends holding the serving lock on the current database. */
  async function holders(): Promise<number[]> {
    const rows = await admin`
      SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.classid = ${SERVING[0]} AND l.objid = ${SERVING[1]}
        AND l.objsubid = 2 AND l.granted AND a.datname = ${url.slice(url.lastIndexOf("/") + 1)}`;
    return (rows as { pid: number }[]).map((r) => Number(r.pid));
  }

  /** Ends a backend's session and waits until it is gone (pg_terminate_backend only signals it). */
  async function endSession(pid: number): Promise<void> {
    const [row] = await admin`SELECT pg_terminate_backend(${pid}, 10000) AS ended`;
    expect(row.ended).toBe(true);
  }

  test("held while its session lives; claimed again once the session is ended", async () => {
    const store = await serverAlone();
    try {
      expect(await store.checkServing()).toBe("held");
      const [before] = await holders();
      await endSession(before!);
      expect(await store.checkServing()).toBe("retaken");
      const after = await holders();
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(before);
      expect(await store.checkServing()).toBe("held");
    } finally {
      await store.close();
    }
  });

  test("taken: another server claimed the database after the session ended", async () => {
    const store = await serverAlone();
    const other = await openPgStore(url);
    try {
      await endSession((await holders())[0]!);
      expect(await other.claimServing("alone")).toBe(true);
      expect(await store.checkServing()).toBe("taken");
    } finally {
      await other.close();
      await store.close();
    }
  });

  test("its own earlier session still holding the lock is ended, not taken for another server", async () => {
    // A server of another database on the same cluster holds a lock of the same name: not this one's.
    const neighbour = await openPgStore(await pg.createDatabase("serving_neighbour"));
    expect(await neighbour.claimServing("alone")).toBe(true);
    const store = await serverAlone();
    try {
      const [old] = await holders();
      // The store loses its connection while the backend behind it lives on: it looks through
      // a connection that no longer answers.
      const inner = store as unknown as { serving: { close(): Promise<void> } };
      const lost = await new SQL(url, { max: 1 }).reserve();
      inner.serving = lost;
      await lost.close();
      expect(await store.checkServing()).toBe("unreachable");
      const gone = async () => !(await holders()).includes(old!);
      for (let i = 0; i < 50 && !(await gone()); i++) await Bun.sleep(100);
      expect(await store.checkServing()).toBe("retaken");
      expect(await holders()).toHaveLength(1);
    } finally {
      await store.close();
      await neighbour.close();
    }
  });
});
