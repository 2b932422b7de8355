/**
 * The PostgreSQL twin of every table in schema.ts, derived from it column by column, so
 * that schema.ts stays the one description of the data. The PostgreSQL migrations
 * (src/db/migrations-pg, drizzle.pg.config.ts) are generated from these tables; nothing
 * else runs on PostgreSQL yet.
 * A column type with no mapping below throws here, at import, naming the column: adding
 * one to schema.ts then fails test/pg-schema.test.ts instead of drifting silently.
 */
import { is, SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  type PgColumnBuilderBase,
  type PgTable,
  pgTable,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { getTableConfig, SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as sqliteSchema from "./schema";

/**
 * SQLite integers are 64-bit; PostgreSQL's `integer` is not. These need more than
 * 2^31: byte sizes, and ids that count every row ever written (`table.column`).
 */
const WIDE = new Set([
  "documents.file_size",
  "events.id",
  "webhook_deliveries.event_id",
  "webhook_attempts.id",
  "audit_log.id",
]);

// Builders are chained generically below; drizzle's per-type builder classes share these.
type Builder = PgColumnBuilderBase & {
  primaryKey(): Builder;
  notNull(): Builder;
  default(v: unknown): Builder;
  generatedByDefaultAsIdentity(): Builder;
  references(ref: () => unknown, actions?: { onDelete?: string }): Builder;
};

/** The PostgreSQL column for one SQLite column, without constraints. */
function columnType(table: string, c: SQLiteColumn): Builder {
  const name = c.name;
  switch (c.columnType) {
    case "SQLiteText":
      return text(name, c.enumValues ? { enum: c.enumValues as [string, ...string[]] } : {}) as unknown as Builder;
    case "SQLiteTextJson":
      return jsonb(name) as unknown as Builder;
    case "SQLiteBoolean":
      return boolean(name) as unknown as Builder;
    case "SQLiteReal":
      return doublePrecision(name) as unknown as Builder;
    case "SQLiteInteger": {
      const b = (WIDE.has(`${table}.${name}`) ? bigint(name, { mode: "number" }) : integer(name)) as unknown as Builder;
      return (c as unknown as { autoIncrement: boolean }).autoIncrement ? b.generatedByDefaultAsIdentity() : b;
    }
    default:
      throw new Error(`no PostgreSQL type for ${table}.${name} (${c.columnType}): add one in src/db/pg-schema.ts`);
  }
}

/** Property name under which `table` exposes `column` (the camelCase key of schema.ts). */
function keyOf(table: SQLiteTable, column: SQLiteColumn): string {
  const entry = Object.entries(table).find(([, v]) => v === column);
  if (!entry) throw new Error(`column ${column.name} not found on its table`);
  return entry[0];
}

/** An index expression (e.g. lower(email)) as SQL text with bare quoted column names. */
function expressionText(expr: SQL): string {
  return expr.queryChunks
    .map((chunk) => {
      if (is(chunk, SQLiteColumn)) return `"${chunk.name}"`;
      const value = (chunk as { value?: string[] }).value;
      if (Array.isArray(value)) return value.join("");
      throw new Error(`unsupported index expression part: ${String(chunk)}`);
    })
    .join("");
}

/**
 * The PostgreSQL twins of the tables in `schema` (a module of SQLite tables), under the
 * same export names. Throws, naming the column, on a type it cannot map.
 */
export function derivePgSchema(schema: Record<string, unknown>): Record<string, PgTable> {
  const byName = new Map<string, PgTable>();
  // References resolve lazily, so a table may point at one derived after it.
  const twin = (name: string) => byName.get(name) as unknown as Record<string, unknown>;
  const out: Record<string, PgTable> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!is(value, SQLiteTable)) continue;
    const table = derive(value, twin);
    byName.set(getTableConfig(value).name, table);
    out[key] = table;
  }
  return out;
}

function derive(table: SQLiteTable, twin: (name: string) => Record<string, unknown>): PgTable {
  const cfg = getTableConfig(table);
  const columns: Record<string, Builder> = {};
  for (const c of cfg.columns) {
    let b = columnType(cfg.name, c);
    if (c.primary) b = b.primaryKey();
    else if (c.notNull) b = b.notNull();
    if (c.default !== undefined) b = b.default(c.default);
    const fk = cfg.foreignKeys.find((f) => f.reference().columns.some((own) => own === c));
    if (fk) {
      const ref = fk.reference();
      const target = getTableConfig(ref.foreignTable).name;
      const targetKey = keyOf(ref.foreignTable, ref.foreignColumns[0] as SQLiteColumn);
      b = b.references(() => twin(target)[targetKey], { onDelete: fk.onDelete });
    }
    columns[keyOf(table, c)] = b;
  }
  return pgTable(cfg.name, columns, (t) =>
    cfg.indexes.map((ix) => {
      const on = ix.config.columns.map((col) =>
        is(col, SQL) ? sql.raw(expressionText(col)) : t[keyOf(table, col as SQLiteColumn)]!,
      ) as [never, ...never[]];
      return (ix.config.unique ? uniqueIndex : index)(ix.config.name).on(...on);
    }),
  );
}

/** Every table of schema.ts, for PostgreSQL, under the same export names. */
export const pgSchema = derivePgSchema(sqliteSchema);

// drizzle-kit reads tables from a schema file's named exports only (not from an object of
// tables), so a PostgreSQL drizzle-kit config points here; test/pg-schema.test.ts checks
// that this list names every table of schema.ts.
export const {
  users,
  sessions,
  collections,
  documents,
  documentTexts,
  tasks,
  apiKeys,
  events,
  webhooks,
  webhookDeliveries,
  webhookAttempts,
  auditLog,
  invitations,
  evalSets,
  evalRuns,
  sourceFetches,
  queryLog,
} = pgSchema;
