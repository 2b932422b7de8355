/**
 * The metadata store on PostgreSQL (RAGD_DATABASE_URL): the same repository functions
 * as on SQLite (dialect.ts gives them each engine's tables and plain SQL), through
 * drizzle's Bun SQL driver on a pool of connections. Reads outside a transaction take
 * any connection; a transaction holds one from BEGIN to COMMIT.
 *
 * Within one process, transactions run one at a time, as on SQLite, so that code written
 * for SQLite's single writer keeps its meaning (a check and the write it guards never
 * interleave with another request's). Between replicas (several processes on one
 * database, docs/ARCHITECTURE.md "Several replicas") a store opened `shared` keeps that
 * meaning too: each transaction first takes one transaction-scoped advisory lock
 * ("ragd", 2), so write transactions run one at a time across all of them. That costs
 * them their overlap and buys three things: a check and its write never interleave with
 * another replica's; no two transactions wait for each other's row locks (PostgreSQL
 * aborted such pairs as deadlocks); and event ids, which a sequence hands out in insert
 * order, follow commit order, so a stream that read id 101 never misses a late 100.
 * The leases of `exclusive` are session advisory locks, which PostgreSQL releases when a
 * process dies.
 */
import { type ReservedSQL, SQL } from "bun";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import type { PgDatabase } from "drizzle-orm/pg-core";
import { ConfigError, redactPassword } from "../config-values";
import { Semaphore } from "../tools/semaphore";
import type { Db } from "./client";
import { migratePostgres } from "./pg-migrate";
import { asBody, type CloseHow, refuseNesting, type Store, type Tx } from "./store";

/** The advisory lock a serving process holds on its database: ("ragd", 1). */
const SERVING_LOCK = [0x72616764, 1] as const;
/** The lock every transaction of a shared store takes first: ("ragd", 2). */
const WRITER_LOCK = [0x72616764, 2] as const;
/** The first half of `exclusive`'s advisory locks ("ragl"); the second is the name's hash. */
const LEASES = 0x7261676c;

/** How a server holds its database: alone, or as one of several replicas sharing it. */
export type Serving = "alone" | "replica";

/**
 * What a look at the serving lock found (PgStore.checkServing): still held; taken again
 * after PostgreSQL had ended the session holding it; the database not answering; or
 * another server holding the database since, which this one must leave to it.
 */
export type ServingCheck = "held" | "retaken" | "unreachable" | "taken";

/** How often a server looks at its serving lock (PgStore.watchServing). */
export const SERVING_CHECK_MS = 5_000;

/** How long `exclusive` work may hold its lock unless its caller says otherwise. */
export const EXCLUSIVE_TIMEOUT_MS = 15 * 60_000;

/** Thrown by `exclusive` when its work ran past its time: the lock is released, the work may still be running. */
export class ExclusiveOverdue extends Error {
  constructor(name: string, timeoutMs: number) {
    super(
      `${name} ran past ${timeoutMs / 1000} s; its lock is released so another replica may do it, and this one skips it until the late run ends`,
    );
    this.name = "ExclusiveOverdue";
  }
}

/** How long closing waits for running queries, in seconds, before it ends their sessions. */
const CLOSE_WAIT_S = 5;

export class PgStore implements Store {
  /** The pool's drizzle face, typed as the SQLite one that repository functions take. */
  readonly reader: Db;
  private readonly lock = new Semaphore(1);
  private serving: ReservedSQL | null = null;
  /** How this process serves the database, once it has claimed it. */
  private servingAs: Serving | null = null;
  /** The backend of the session holding the serving lock (PostgreSQL's pid). */
  private servingPid: number | null = null;
  private servingWatch: ReturnType<typeof setInterval> | null = null;
  /** Names of `exclusive` work that ran past its time here and has not settled yet. */
  private readonly overdue = new Set<string>();

  constructor(
    private readonly client: SQL,
    /** Other processes write the same database (replicas, or a command beside them). */
    private readonly shared = false,
  ) {
    this.reader = drizzle({ client }) as unknown as Db;
  }

  atomically<T>(fn: (tx: Tx) => Promise<T> | T): Promise<T> {
    refuseNesting();
    const pool = this.reader as unknown as PgDatabase<never>;
    return this.lock.run(() =>
      pool.transaction(async (tx) => {
        if (this.shared) await tx.execute(sql`SELECT pg_advisory_xact_lock(${WRITER_LOCK[0]}, ${WRITER_LOCK[1]})`);
        return asBody(() => fn(tx as unknown as Db));
      }),
    );
  }

  /**
   * Takes the database for this process's server: a session advisory lock on a connection
   * kept for it, which PostgreSQL releases when the process ends or loses it. A server
   * `alone` takes it exclusively, replicas (RAGD_STORAGE_URL set too) shared: so
   * replicas run side by side, and a server alone never beside anyone. False when refused.
   */
  async claimServing(how: Serving): Promise<boolean> {
    const conn = await this.client.reserve();
    const [row] =
      how === "alone"
        ? await conn`SELECT pg_try_advisory_lock(${SERVING_LOCK[0]}, ${SERVING_LOCK[1]}) AS ok, pg_backend_pid() AS pid`
        : await conn`SELECT pg_try_advisory_lock_shared(${SERVING_LOCK[0]}, ${SERVING_LOCK[1]}) AS ok, pg_backend_pid() AS pid`;
    if (!row?.ok) {
      conn.release();
      return false;
    }
    this.serving = conn;
    this.servingAs = how;
    this.servingPid = Number(row.pid);
    return true;
  }

  /**
   * Whether this server still holds its serving lock. PostgreSQL releases it with the
   * session, so after a restart of the database the server would serve without it, and
   * a second server alone could start beside it: the lock is then taken again on a new
   * session, or found taken by another server meanwhile.
   */
  async checkServing(): Promise<ServingCheck> {
    const how = this.servingAs;
    if (how === null) return "held";
    if (this.serving && (await holdsServingLock(this.serving))) return "held";
    // The session has ended, or lost the lock: the connection goes back (the pool drops a
    // closed one), and a new one claims.
    this.serving?.release();
    this.serving = null;
    try {
      if (await this.claimServing(how)) return "retaken";
      return (await this.heldByOldSession()) ? "unreachable" : "taken";
    } catch {
      return "unreachable";
    }
  }

  /**
   * Whether the only holder of the serving lock is this server's own earlier session, one
   * PostgreSQL has not seen end yet (its connection dropped on the way): that session is
   * ended, and the claim tried again at the next look, instead of taking it for another
   * server's.
   */
  private async heldByOldSession(): Promise<boolean> {
    const old = this.servingPid;
    // Advisory locks are per database: another database's ragd on the same cluster holds its own.
    const holders = await this.client`
      SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = ${SERVING_LOCK[0]}
        AND objid = ${SERVING_LOCK[1]} AND objsubid = 2 AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
    const pids = (holders as { pid: number }[]).map((h) => Number(h.pid));
    if (old === null || pids.some((pid) => pid !== old)) return false;
    if (pids.length) await this.client`SELECT pg_terminate_backend(${old})`;
    return true;
  }

  /** Looks at the serving lock every SERVING_CHECK_MS (until close) and tells `report` what changed. */
  watchServing(report: (found: "retaken" | "taken") => void): void {
    let looking = false;
    this.servingWatch = setInterval(async () => {
      if (looking) return;
      looking = true;
      const found = await this.checkServing().finally(() => {
        looking = false;
      });
      if (found === "retaken" || found === "taken") report(found);
      if (found === "taken" && this.servingWatch) clearInterval(this.servingWatch);
    }, SERVING_CHECK_MS);
    this.servingWatch.unref();
  }

  /**
   * Runs `fn` while holding the advisory lock of `name` on a connection kept for it, or
   * skips it (undefined) when another session holds it. Work that runs past `timeoutMs`
   * (a hung call to the store, say) would keep that work from every replica for as long
   * as it hangs: its lock is released then and the call throws ExclusiveOverdue (callers
   * log it), while this process skips `name` until the overdue run has settled. If the
   * unlock fails, the connection is closed rather than returned to the pool with the
   * lock still held.
   */
  async exclusive<T>(name: string, fn: () => Promise<T>, timeoutMs = EXCLUSIVE_TIMEOUT_MS): Promise<T | undefined> {
    if (this.overdue.has(name)) return undefined;
    const conn = await this.client.reserve();
    let held = false;
    try {
      const [row] = await conn`SELECT pg_try_advisory_lock(${LEASES}, hashtext(${name})) AS ok`;
      held = Boolean(row?.ok);
      if (!held) return undefined;
      return await this.withinTime(name, fn(), timeoutMs);
    } finally {
      if (!held) void conn.release();
      else
        await conn`SELECT pg_advisory_unlock(${LEASES}, hashtext(${name}))`.then(
          () => conn.release(),
          () => conn.close(),
        );
    }
  }

  /** `work`'s outcome, or ExclusiveOverdue once `timeoutMs` has passed (`name` is then overdue until it settles). */
  private async withinTime<T>(name: string, work: Promise<T>, timeoutMs: number): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ExclusiveOverdue(name, timeoutMs)), timeoutMs);
    });
    try {
      return await Promise.race([work, late]);
    } catch (err) {
      if (err instanceof ExclusiveOverdue) {
        this.overdue.add(name);
        void work.then(
          () => this.overdue.delete(name),
          () => this.overdue.delete(name),
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(how: CloseHow = {}): Promise<void> {
    if (this.servingWatch) clearInterval(this.servingWatch);
    this.servingAs = null;
    this.serving?.release();
    this.serving = null;
    // After PostgreSQL restarted under it, closing Bun's pool crashed the process (exit 139)
    // in 5 of 40 exits, and otherwise could wait on a query of an ended session without end.
    // A process that ends anyway leaves its sockets to the system; PostgreSQL sees them close.
    if (how.processEnds) return;
    await this.client.close({ timeout: CLOSE_WAIT_S });
  }
}

/** Whether the session of `conn` holds the serving lock (false when it does not answer). */
async function holdsServingLock(conn: ReservedSQL): Promise<boolean> {
  try {
    const [row] = await conn`
      SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
        AND classid = ${SERVING_LOCK[0]} AND objid = ${SERVING_LOCK[1]} AND objsubid = 2 AND granted) AS held`;
    return Boolean(row?.held);
  } catch {
    return false;
  }
}

/**
 * Connects to the database at `url` and brings it to the current schema (pg-migrate.ts);
 * `shared` when other processes write it too (PgStore).
 */
export async function openPgStore(url: string, { shared = false } = {}): Promise<PgStore> {
  const client = new SQL(url);
  try {
    await migratePostgres(client);
  } catch (err) {
    await client.close();
    throw new Error(`could not use the PostgreSQL database ${redactPassword(url)}: ${(err as Error).message}`);
  }
  return new PgStore(client, shared);
}

/** The store of RAGD_DATABASE_URL for this process's server, alone or as a replica (PgStore.claimServing). */
export async function openServingPgStore(url: string, how: Serving): Promise<PgStore> {
  const db = await openPgStore(url, { shared: how === "replica" });
  if (await db.claimServing(how)) return db;
  await db.close();
  throw new ConfigError(
    how === "alone"
      ? `the database ${redactPassword(url)} is in use by another ragd server; several servers share a database only as replicas, with RAGD_STORAGE_URL set on every one`
      : `the database ${redactPassword(url)} is in use by a ragd server without RAGD_STORAGE_URL, which keeps it alone; stop it, or give it the same RAGD_STORAGE_URL`,
  );
}
