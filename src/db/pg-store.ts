/**
 * The metadata store on PostgreSQL (RAGD_DATABASE_URL): the same repository functions
 * as on SQLite (dialect.ts gives them each engine's tables and plain SQL), through
 * drizzle's Bun SQL driver on a pool of connections. Reads outside a transaction take
 * any connection; a transaction holds one from BEGIN to COMMIT.
 *
 * Within one process, transactions run one at a time, as on SQLite, so that code written
 * for SQLite's single writer keeps its meaning (a check and the write it guards never
 * interleave with another request's). Between processes that guarantee is PostgreSQL's
 * row locks and constraints alone; what several replicas need beyond it (task claims that
 * skip each other's rows, leases) is the replicas plan's next step (docs/ARCHITECTURE.md).
 */
import { type ReservedSQL, SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { PgDatabase } from "drizzle-orm/pg-core";
import { ConfigError, redactPassword } from "../config-values";
import { Semaphore } from "../tools/semaphore";
import type { Db } from "./client";
import { migratePostgres } from "./pg-migrate";
import { asBody, refuseNesting, type Store, type Tx } from "./store";

/** The advisory lock a serving process holds on its database: ("ragd", 1). */
const SERVING_LOCK = [0x72616764, 1] as const;

export class PgStore implements Store {
  /** The pool's drizzle face, typed as the SQLite one that repository functions take. */
  readonly reader: Db;
  private readonly lock = new Semaphore(1);
  private serving: ReservedSQL | null = null;

  constructor(private readonly client: SQL) {
    this.reader = drizzle({ client }) as unknown as Db;
  }

  atomically<T>(fn: (tx: Tx) => Promise<T> | T): Promise<T> {
    refuseNesting();
    const pool = this.reader as unknown as PgDatabase<never>;
    return this.lock.run(() => pool.transaction((tx) => asBody(() => fn(tx as unknown as Db))));
  }

  /**
   * Takes the database for this process's server alone: a session advisory lock on a
   * connection kept for it, which PostgreSQL releases when the process ends or loses it.
   * False when another server holds it: several servers on one database are not built yet
   * (their task claims would collide; docs/ARCHITECTURE.md, Several replicas).
   */
  async claimServing(): Promise<boolean> {
    const conn = await this.client.reserve();
    const [row] = await conn`SELECT pg_try_advisory_lock(${SERVING_LOCK[0]}, ${SERVING_LOCK[1]}) AS ok`;
    if (!row?.ok) {
      conn.release();
      return false;
    }
    this.serving = conn;
    return true;
  }

  async close(): Promise<void> {
    this.serving?.release();
    this.serving = null;
    await this.client.close();
  }
}

/** Connects to the database at `url` and brings it to the current schema (pg-migrate.ts). */
export async function openPgStore(url: string): Promise<PgStore> {
  const client = new SQL(url);
  try {
    await migratePostgres(client);
  } catch (err) {
    await client.close();
    throw new Error(`could not use the PostgreSQL database ${redactPassword(url)}: ${(err as Error).message}`);
  }
  return new PgStore(client);
}

/** The store of RAGD_DATABASE_URL for this process's server alone (PgStore.claimServing). */
export async function openServingPgStore(url: string): Promise<PgStore> {
  const db = await openPgStore(url);
  if (await db.claimServing()) return db;
  await db.close();
  throw new ConfigError(
    `the database ${redactPassword(url)} is in use by another ragd server; one server per database (several are not supported yet)`,
  );
}
