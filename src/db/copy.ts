/**
 * Copies every row of one metadata store into another, SQLite to PostgreSQL or back
 * (`ragd move`, cli/move.ts). Rows are read through the source's tables and written through
 * the target's (`tables(db)`), so drizzle converts what the twins keep differently: booleans
 * (0/1 and boolean), JSON columns (text and jsonb), 64-bit ids (integer and bigint). Tables go
 * parents first, so every foreign key finds its row; all of it in one transaction on the
 * target, which then holds everything or, on any failure, nothing. Counters of ids are carried
 * over as well: an event id, which clients keep as the stream's position, is never reused.
 */
import { asc, count, getTableColumns, gt, is, max, type SQL } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import { isPg, type PlainSql, runSql, selectRows, tables } from "./dialect";
import { statement } from "./prepared";
import * as lite from "./schema";
import type { Store } from "./store";

/** What was copied of one table. */
export interface CopiedTable {
  name: string;
  rows: number;
}

/** About this many bytes of rows are held at once (a text source's content may be megabytes). */
const BATCH_BYTES = 16 * 1024 * 1024;
/** Rows per batch at most: both engines bound a statement's parameters (SQLite at 32,766). */
const MAX_PARAMS = 20_000;
/** Rows of a table's first batch, before its rows' size is known. */
const FIRST_BATCH = 16;

type Key = keyof typeof lite;
// Rows as drizzle gives them for a table not known statically.
type Row = Record<string, unknown>;

/**
 * The tables of schema.ts with every table a foreign key points at before the tables
 * pointing at it: the order rows can be inserted in.
 */
export function copyOrder(): { key: Key; name: string; table: SQLiteTable }[] {
  const all = Object.entries(lite).filter(([, v]) => is(v, SQLiteTable)) as [Key, SQLiteTable][];
  const done = new Set<SQLiteTable>();
  const out: { key: Key; name: string; table: SQLiteTable }[] = [];
  while (out.length < all.length) {
    const before = out.length;
    for (const [key, table] of all) {
      if (done.has(table)) continue;
      const cfg = getTableConfig(table);
      const parents = cfg.foreignKeys.map((fk) => fk.reference().foreignTable).filter((t) => t !== table);
      if (!parents.every((p) => done.has(p))) continue;
      done.add(table);
      out.push({ key, name: cfg.name, table });
    }
    if (out.length === before) throw new Error("the tables' foreign keys form a cycle");
  }
  return out;
}

/** Accounts and collections in `db`: a store holding any is not a place to move into. */
export async function heldRows(db: Db): Promise<{ users: number; collections: number }> {
  const t = tables(db);
  const [users] = await db.select({ n: count() }).from(t.users);
  const [collections] = await db.select({ n: count() }).from(t.collections);
  return { users: users?.n ?? 0, collections: collections?.n ?? 0 };
}

/** Copies every row of `from` into `to`, whose tables must be empty; rows per table, in copy order. */
export async function copyRows(from: Store, to: Store): Promise<CopiedTable[]> {
  return to.atomically(async (tx) => {
    const copied: CopiedTable[] = [];
    for (const { key, name, table } of copyOrder()) {
      try {
        copied.push({ name, rows: await copyTable(from.reader, tx, key) });
        await carryCounter(from.reader, tx, key, table);
      } catch (err) {
        // drizzle's message quotes the statement's values (hashes, texts): the driver's alone is shown.
        const cause = (err as { cause?: unknown }).cause ?? err;
        throw new Error(`copying the rows of ${name}: ${cause instanceof Error ? cause.message : String(cause)}`);
      }
    }
    return copied;
  });
}

/** The table of `key` on `db`'s engine, its columns, and its primary key's property name. */
function tableOn(db: Db, key: Key) {
  const table = tables(db)[key] as unknown as SQLiteTable;
  const columns = getTableColumns(table);
  const pk = Object.keys(columns).find((k) => columns[k]!.primary);
  if (!pk) throw new Error(`table ${key} has no one-column primary key`);
  return { table, columns, pk };
}

/** Copies one table in batches ordered by primary key; the number of rows. */
async function copyTable(from: Db, to: Db, key: Key): Promise<number> {
  const src = tableOn(from, key);
  const dst = tableOn(to, key);
  const maxRows = Math.floor(MAX_PARAMS / Object.keys(src.columns).length);
  let limit = Math.min(FIRST_BATCH, maxRows);
  let last: unknown;
  let total = 0;
  for (;;) {
    const after: SQL | undefined = last === undefined ? undefined : gt(src.columns[src.pk]!, last);
    const rows = (await from
      .select()
      .from(src.table)
      .where(after)
      .orderBy(asc(src.columns[src.pk]!))
      .limit(limit)) as Row[];
    if (rows.length === 0) return total;
    await to.insert(dst.table).values(rows as never);
    total += rows.length;
    last = rows[rows.length - 1]![src.pk];
    limit = Math.max(1, Math.min(maxRows, Math.floor(BATCH_BYTES / averageBytes(rows))));
  }
}

/** A rough size of a row in memory: its strings' lengths, and a few bytes for anything else. */
function averageBytes(rows: Row[]): number {
  let bytes = 0;
  for (const row of rows)
    for (const v of Object.values(row)) bytes += typeof v === "string" ? v.length * 2 : v === null ? 1 : 16;
  return Math.max(1, bytes / rows.length);
}

/** The last id each engine has handed out for a table with generated ids; null when none yet. */
const LAST_ID: PlainSql = {
  sqlite: "SELECT seq AS n FROM sqlite_sequence WHERE name = $table",
  pg: "SELECT pg_sequence_last_value(pg_get_serial_sequence($table, $column)::regclass) AS n",
};

/** Sets a table's counter to $n: SQLite keeps it in sqlite_sequence, PostgreSQL in the column's sequence. */
const SET_COUNTER: PlainSql = {
  sqlite: "UPDATE sqlite_sequence SET seq = $n WHERE name = $table",
  pg: "SELECT setval(pg_get_serial_sequence($table, $column), $n)",
};

/** SQLite has no counter row for a table that has not had a generated id yet. */
const NEW_COUNTER = "INSERT INTO sqlite_sequence (name, seq) VALUES ($table, $n)";

/**
 * For a table whose id the database generates (events, webhook attempts, the audit log):
 * the target's counter goes to the source's, or to the highest copied id if that is higher
 * (copied rows bring their ids, which PostgreSQL's sequence does not see), so the next row
 * written after the move gets an id never used before.
 */
async function carryCounter(from: Db, to: Db, key: Key, table: SQLiteTable): Promise<void> {
  const cfg = getTableConfig(table);
  const column = cfg.columns.find((c) => (c as unknown as { autoIncrement?: boolean }).autoIncrement);
  if (!column) return;
  const params = { table: cfg.name, column: column.name };
  const [last] = await selectRows<{ n: number | string | null }>(from, LAST_ID, params);
  const dst = tableOn(to, key);
  const [top] = await to.select({ n: max(dst.columns[dst.pk]!) }).from(dst.table);
  const n = Math.max(Number(last?.n ?? 0), Number(top?.n ?? 0));
  if (n < 1) return;
  const changed = await runSql(to, SET_COUNTER, { ...params, n });
  if (changed === 0 && !isPg(to)) statement(to, NEW_COUNTER).run({ ...params, n } as never);
}
