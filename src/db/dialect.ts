/**
 * What lets one repository function run on SQLite and on PostgreSQL. drizzle's query
 * builders take schema.ts's tables on either connection and render each dialect's SQL;
 * awaiting a builder gives its rows (or, for a write, runs it) on both. What differs is
 * gathered here: plain SQL written once per dialect, and the first row of a result.
 */
import { type SQL, sql } from "drizzle-orm";
import type { PgDatabase } from "drizzle-orm/pg-core";
import type { Db } from "./client";
import { pgSchema } from "./pg-schema";
import { isPg, statement } from "./prepared";
import * as lite from "./schema";

export { isPg };

// biome-ignore lint/suspicious/noExplicitAny: the PostgreSQL connection behind the shared Db type
type PgDb = PgDatabase<any>;

/** The first row of a result, or undefined: `.get()` on either dialect. */
export function first<T>(rows: readonly T[]): T | undefined {
  return rows[0];
}

/**
 * A statement in plain SQL, once per dialect, with parameters named `$name` in both
 * (PostgreSQL's text is rendered with numbered ones). On SQLite it is prepared once per
 * connection and kept (prepared.ts).
 */
export interface PlainSql {
  sqlite: string;
  pg: string;
}

/** The rows of a plain-SQL query. */
export async function selectRows<T>(db: Db, q: PlainSql, params: Record<string, unknown> = {}): Promise<T[]> {
  if (!isPg(db)) return statement(db, q.sqlite).all(params as never) as T[];
  return [...((await (db as unknown as PgDb).execute(bind(q.pg, params))) as unknown as T[])];
}

/** Runs a plain-SQL write; the number of rows it changed. */
export async function runSql(db: Db, q: PlainSql, params: Record<string, unknown> = {}): Promise<number> {
  if (!isPg(db)) return statement(db, q.sqlite).run(params as never).changes;
  const result = (await (db as unknown as PgDb).execute(bind(q.pg, params))) as unknown as { count?: number };
  return result.count ?? 0;
}

/** `text` with each `$name` replaced by that parameter, bound (never spliced into the text). */
function bind(text: string, params: Record<string, unknown>): SQL {
  const parts = text.split(/\$([A-Za-z_]\w*)/);
  const chunks: SQL[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 0) chunks.push(sql.raw(part));
    else {
      if (!(part in params)) throw new Error(`no value for $${part}`);
      chunks.push(sql`${params[part]}`);
    }
  });
  return sql.join(chunks);
}

/**
 * The tables of schema.ts as `db`'s dialect knows them: schema.ts's own on SQLite, their
 * PostgreSQL twins (pg-schema.ts: booleans, 64-bit ids and JSON in PostgreSQL's types) on
 * PostgreSQL. Both have the same names, columns and row types, so code written against
 * schema.ts's types runs on either.
 */
export function tables(db: Db): typeof lite {
  if (!isPg(db)) return lite;
  twins ??= { ...lite, ...pgSchema } as unknown as typeof lite;
  return twins;
}

let twins: typeof lite | null = null;
