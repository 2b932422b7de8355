/**
 * The metadata database's seam: every repository function (db/repo) takes a connection
 * and returns a Promise, so that a database answering over a socket can stand where
 * SQLite stands. Reads outside a transaction go to `reader`; every write runs in a
 * transaction: `atomically`, or the group commit (batch.ts), which opens one.
 *
 * On SQLite the guarantees of the synchronous code before it hold:
 * - Transactions never interleave: one in-process lock is held from BEGIN to COMMIT, and
 *   only the holder touches the writing connection (a body awaits between statements, so
 *   without the lock another request's statements could land in its transaction).
 * - No read outside a transaction sees another's uncommitted rows: `reader` is a second,
 *   read-only connection, which WAL shows the last commit only. A write through it throws.
 * - A body must use its `tx`: calling `atomically` inside one (a group commit's body
 *   included) would wait for the lock it holds, so it throws instead.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Statement } from "bun:sqlite";
import type { Db } from "./client";
import { Semaphore } from "../tools/semaphore";
import type { Checkpointer } from "./checkpointer";

/** A connection inside a transaction: what write functions take. */
export type Tx = Db;

/** The metadata database, whichever engine keeps it. */
export interface Store {
  /** Reads outside a transaction; they see committed rows only. */
  readonly reader: Db;
  /** Runs `fn` in a transaction of its own: all its writes commit, or none (it threw). */
  atomically<T>(fn: (tx: Tx) => Promise<T> | T): Promise<T>;
  /**
   * Runs `fn` unless another process sharing the database runs work of the same `name`
   * (a lease; undefined when skipped): background work one replica does for all, such as
   * a table's upkeep or the bucket's listing. Work running past `timeoutMs` (a default
   * unless given) gives its lease up and the call throws (PgStore.exclusive). One process
   * per SQLite file: it always runs, without a time limit.
   */
  exclusive<T>(name: string, fn: () => Promise<T>, timeoutMs?: number): Promise<T | undefined>;
  /** Closes the database; `processEnds` when the process exits right after (CloseHow). */
  close(how?: CloseHow): Promise<void>;
}

/**
 * How a store is closed: `processEnds` when the process exits right after, so what the
 * operating system ends with it (a PostgreSQL pool's sockets) may be left to it.
 */
export interface CloseHow {
  processEnds?: boolean;
}

/**
 * The transaction a body runs in, so that a nested `atomically` can be refused. Timers and
 * continuations a body starts inherit it and may run after the commit: they are refused
 * only while it is still open.
 */
const inside = new AsyncLocalStorage<{ open: boolean }>();

/** Runs `fn` marked as a transaction's body, refused once the mark is cleared. */
export async function asBody<T>(fn: () => Promise<T> | T): Promise<T> {
  const mark = { open: true };
  try {
    return await inside.run(mark, fn);
  } finally {
    mark.open = false;
  }
}

export function refuseNesting(): void {
  if (inside.getStore()?.open) throw new Error("a transaction's body must use its tx, not open another transaction");
}

/** The data directory's SQLite database. */
export class SqliteStore implements Store {
  private readonly lock = new Semaphore(1);
  private readonly steps: { begin: Statement; commit: Statement; rollback: Statement };

  /**
   * `writer` is the connection transactions write through; `reader` a read-only one on
   * the same file for reads outside them.
   */
  constructor(
    private readonly writer: Db,
    readonly reader: Db,
    /** Checkpoints off the main thread (checkpointer.ts); null: SQLite's, within commits. */
    readonly checkpointer: Checkpointer | null = null,
  ) {
    const c = writer.$client;
    this.steps = {
      begin: c.prepare("BEGIN IMMEDIATE"),
      commit: c.prepare("COMMIT"),
      rollback: c.prepare("ROLLBACK"),
    };
  }

  atomically<T>(fn: (tx: Tx) => Promise<T> | T): Promise<T> {
    refuseNesting();
    return this.lock.run(async () => {
      this.steps.begin.run();
      try {
        const value = await asBody(() => fn(this.writer));
        this.steps.commit.run();
        this.checkpointer?.wrote();
        return value;
      } catch (err) {
        // Unless what failed already ended it (a full disk can).
        if (this.writer.$client.inTransaction) this.steps.rollback.run();
        throw err;
      }
    });
  }

  exclusive<T>(_name: string, fn: () => Promise<T>): Promise<T | undefined> {
    return fn();
  }

  async close(): Promise<void> {
    await this.checkpointer?.close();
    this.reader.$client.close();
    this.writer.$client.close();
  }
}
