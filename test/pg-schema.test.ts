/**
 * The PostgreSQL schema derived from schema.ts describes the same tables: drizzle-kit's
 * snapshots of both (what it generates migrations from) agree on every table, column,
 * nullability, default, primary key, foreign key and index; only the types differ, as
 * the mapping in src/db/pg-schema.ts says. And both migration histories are generated
 * from it: neither lags behind schema.ts, their names pair up, and the modules embedded
 * in the binary are the SQL files.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { blob, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { embeddedModule, HISTORIES } from "../scripts/embed-migrations";
import { migrations } from "../src/db/migrations/index";
import { migrations as pgMigrations } from "../src/db/migrations-pg/index";
import {
  generateDrizzleJson,
  generateMigration,
  generateSQLiteDrizzleJson,
  generateSQLiteMigration,
} from "./support/drizzle-kit";
import * as pgModule from "../src/db/pg-schema";
import { derivePgSchema, pgSchema } from "../src/db/pg-schema";
import * as sqliteSchema from "../src/db/schema";

interface Column {
  name: string;
  type: string;
  primaryKey: boolean;
  notNull: boolean;
  default?: unknown;
  identity?: unknown;
}
interface Table {
  columns: Record<string, Column>;
  indexes: Record<string, { columns: (string | { expression: string })[]; isUnique: boolean }>;
  foreignKeys: Record<string, { tableTo: string; columnsFrom: string[]; columnsTo: string[]; onDelete?: string }>;
}

const pg = (await generateDrizzleJson(pgSchema)) as unknown as { tables: Record<string, Table> };
const lite = (await generateSQLiteDrizzleJson(sqliteSchema)) as unknown as { tables: Record<string, Table> };
const pgTable = (name: string) => pg.tables[`public.${name}`]!;
const names = Object.keys(lite.tables).sort();

/** SQLite type → the PostgreSQL types it may become (booleans and JSON are SQLite integers and text). */
const MAY_BECOME: Record<string, string[]> = {
  text: ["text", "jsonb"],
  integer: ["integer", "bigint", "boolean"],
  real: ["double precision"],
};

describe("derived PostgreSQL schema", () => {
  test("has exactly the tables of schema.ts", () => {
    expect(names.length).toBeGreaterThan(10);
    expect(Object.keys(pg.tables).sort()).toEqual(names.map((n) => `public.${n}`));
  });

  test.each(names)("%s: same columns, nullability, defaults and primary key; compatible types", (name) => {
    const want = lite.tables[name]!.columns;
    const got = pgTable(name).columns;
    expect(Object.keys(got)).toEqual(Object.keys(want));
    for (const [col, w] of Object.entries(want)) {
      const g = got[col]!;
      expect({ col, notNull: g.notNull, primaryKey: g.primaryKey, default: g.default }).toEqual({
        col,
        notNull: w.notNull,
        primaryKey: w.primaryKey,
        default: w.default,
      });
      expect(MAY_BECOME[w.type]).toContain(g.type);
    }
  });

  test.each(names)("%s: same indexes and foreign keys", (name) => {
    const want = lite.tables[name]!;
    const got = pgTable(name);
    const indexes = (t: Table, pgSide: boolean) =>
      Object.values(t.indexes).map((ix) => ({
        unique: ix.isUnique,
        // PostgreSQL keeps an expression's text; SQLite's snapshot has the same text.
        columns: ix.columns.map((c) => (pgSide && typeof c === "object" ? c.expression : c)),
      }));
    expect(Object.keys(got.indexes).sort()).toEqual(Object.keys(want.indexes).sort());
    expect(indexes(got, true)).toEqual(indexes(want, false));
    const fks = (t: Table) =>
      Object.values(t.foreignKeys)
        .map((f) => `${f.columnsFrom} -> ${f.tableTo}(${f.columnsTo}) on delete ${f.onDelete}`)
        .sort();
    expect(fks(got)).toEqual(fks(want));
  });

  test.each([
    ["users", "is_admin", "boolean"],
    ["collections", "ocr_languages", "jsonb"],
    ["collections", "hybrid_alpha", "double precision"],
    ["documents", "file_size", "bigint"],
    ["documents", "chunk_count", "integer"],
    ["events", "id", "bigint"],
    ["webhook_deliveries", "event_id", "bigint"],
  ])("%s.%s is %s", (table, column, type) => {
    expect(pgTable(table).columns[column]!.type).toBe(type);
  });

  test("autoincrement ids become identity columns", () => {
    for (const [table, t] of Object.entries(lite.tables)) {
      for (const [column, c] of Object.entries(t.columns)) {
        const auto = (c as Column & { autoincrement?: boolean }).autoincrement === true;
        expect({ table, column, identity: pgTable(table).columns[column]!.identity !== undefined }).toEqual({
          table,
          column,
          identity: auto,
        });
      }
    }
  });

  test("drizzle-kit writes a migration creating every table, key and index", async () => {
    const statements = await generateMigration(await generateDrizzleJson({}), await generateDrizzleJson(pgSchema));
    for (const name of names) expect(statements.some((s) => s.startsWith(`CREATE TABLE "${name}"`))).toBe(true);
    const fkCount = Object.values(lite.tables).reduce((n, t) => n + Object.keys(t.foreignKeys).length, 0);
    expect(statements.filter((s) => s.includes("FOREIGN KEY")).length).toBe(fkCount);
    expect(statements).toContain('CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email"));');
  });

  test("every table is also a named export, where drizzle-kit looks for tables", () => {
    const named = Object.entries(pgModule).filter(([key]) => key !== "pgSchema" && key !== "derivePgSchema");
    expect(Object.fromEntries(named)).toEqual(pgSchema);
  });

  test("a column type with no PostgreSQL mapping is refused, by name", () => {
    const files = sqliteTable("files", { id: integer("id").primaryKey(), name: text("name"), bytes: blob("bytes") });
    expect(() => derivePgSchema({ files })).toThrow(/files\.bytes/);
  });
});

/** drizzle-kit's snapshot after the newest migration of a history: what its next migration is generated against. */
function latestSnapshot(dir: string) {
  const journal = JSON.parse(readFileSync(join(dir, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const newest = journal.entries.at(-1)!.tag.split("_")[0];
  return JSON.parse(readFileSync(join(dir, "meta", `${newest}_snapshot.json`), "utf8"));
}

const [SQLITE_DIR, PG_DIR] = HISTORIES as [string, string];
const nameOf = (tag: string) => tag.replace(/^\d+_/, "");
/** A table that no migration creates, to show the checks below notice one. */
const notes = sqliteTable("notes", { id: text("id").primaryKey(), body: text("body").notNull() });

describe("migration histories", () => {
  test("each SQLite migration since PostgreSQL's baseline has a PostgreSQL twin of the same name, in order", () => {
    // PostgreSQL starts at one baseline named after the SQLite migration current when it
    // was made (no PostgreSQL database predates it); from then on both get each migration.
    const sqliteNames = migrations.map((m) => nameOf(m.tag));
    const baseline = sqliteNames.indexOf(nameOf(pgMigrations[0]!.tag));
    expect(baseline).toBeGreaterThanOrEqual(0);
    expect(sqliteNames.slice(baseline)).toEqual(pgMigrations.map((m) => nameOf(m.tag)));
  });

  test("the PostgreSQL history is up to date with schema.ts (else: npm run db:generate)", async () => {
    expect(await generateMigration(latestSnapshot(PG_DIR), await generateDrizzleJson(pgSchema))).toEqual([]);
  });

  test("the SQLite history is up to date with schema.ts (else: npm run db:generate)", async () => {
    expect(await generateSQLiteMigration(latestSnapshot(SQLITE_DIR), lite as never)).toEqual([]);
  });

  test("a table added to schema.ts without its migrations is noticed in both histories", async () => {
    const changed = { ...sqliteSchema, notes };
    const pgDiff = await generateMigration(latestSnapshot(PG_DIR), await generateDrizzleJson(derivePgSchema(changed)));
    const liteDiff = await generateSQLiteMigration(
      latestSnapshot(SQLITE_DIR),
      await generateSQLiteDrizzleJson(changed),
    );
    expect(pgDiff.join("\n")).toContain('CREATE TABLE "notes"');
    expect(liteDiff.join("\n")).toContain("CREATE TABLE `notes`");
  });

  test.each(HISTORIES.map((dir) => [dir.split("/").at(-1)!, dir]))(
    "%s: the module embedded in the binary is its SQL files (else: bun scripts/embed-migrations.ts)",
    (_name, dir) => {
      expect(readFileSync(join(dir, "index.ts"), "utf8")).toBe(embeddedModule(dir).text);
    },
  );
});
