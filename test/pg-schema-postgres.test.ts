/**
 * The derived PostgreSQL schema (src/db/pg-schema.ts) on a real PostgreSQL server: the
 * migrations generated from it (src/db/migrations-pg) apply, and rows behave as they do in SQLite
 * (booleans, JSON, identity ids, the case-insensitive email index, cascading deletes).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { generateSQLiteDrizzleJson } from "./support/drizzle-kit";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { migratePostgres } from "../src/db/pg-migrate";
import { pgSchema } from "../src/db/pg-schema";
import * as sqliteSchema from "../src/db/schema";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";

// Typed loosely: the derived tables carry their columns, but not in their static type.
const t = pgSchema as Record<string, PgTable & Record<string, PgColumn>>;

if (!havePostgres) console.log(`PostgreSQL tests skipped: ${NO_POSTGRES}`);

// CI installs PostgreSQL; there a missing one is a failure, not a quiet skip.
test.skipIf(havePostgres || !process.env.CI)("CI has the PostgreSQL server the PostgreSQL tests need", () => {
  expect(havePostgres).toBe(true);
});

describe.skipIf(!havePostgres)("the derived schema on PostgreSQL", () => {
  let pg: TestPostgres;
  let client: SQL;
  let db: ReturnType<typeof drizzle>;
  const now = new Date().toISOString();

  beforeAll(async () => {
    pg = await startPostgres();
    client = new SQL(await pg.createDatabase("schema"), { max: 2 });
    db = drizzle({ client });
    await migratePostgres(client);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await pg?.stop();
  });

  test("every table of schema.ts exists with its columns", async () => {
    const lite = (await generateSQLiteDrizzleJson(sqliteSchema)) as unknown as {
      tables: Record<string, { columns: Record<string, unknown> }>;
    };
    const rows = await client<{ table_name: string; column_name: string }[]>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_migrations'`;
    const got: Record<string, string[]> = {};
    for (const r of rows) (got[r.table_name] ??= []).push(r.column_name);
    const want = Object.fromEntries(Object.entries(lite.tables).map(([n, tb]) => [n, Object.keys(tb.columns).sort()]));
    expect(Object.fromEntries(Object.entries(got).map(([n, cols]) => [n, cols.sort()]))).toEqual(want);
  });

  test("rows keep their types, and ids count up", async () => {
    await db.insert(t.users!).values({ id: "u1", email: "Ada@Example.com", passwordHash: "h", createdAt: now });
    await db.insert(t.collections!).values({
      ...{ id: "c1", userId: "u1", kind: "pipeline", name: "p", chunkingStrategy: "recursive", chunkSize: 1000 },
      ...{ chunkOverlap: 200, embeddingModel: "m", vectorProvider: "lancedb", retrievalTopK: 5, hybridAlpha: 0.25 },
      ...{ ocrLanguages: ["eng", "deu"], createdAt: now, updatedAt: now },
    });
    const [user] = await db.select().from(t.users!).where(eq(t.users!.id, "u1"));
    const [col] = await db.select().from(t.collections!);
    expect(user).toMatchObject({ isAdmin: false, mustChangePassword: false, tier: "free" });
    expect(col).toMatchObject({ ocrLanguages: ["eng", "deu"], hybridAlpha: 0.25, activeGeneration: 1 });
    const ids: number[] = [];
    for (const type of ["source.queued", "source.ready"]) {
      const [row] = await db
        .insert(t.events!)
        .values({ collectionId: "c1", type, createdAt: now })
        .returning({ id: t.events!.id });
      ids.push(row!.id as number);
    }
    expect(ids[1]).toBeGreaterThan(ids[0]!);
  });

  test("an email differing only in case is refused, as in SQLite", async () => {
    const again = db.insert(t.users!).values({ id: "u2", email: "ada@example.COM", passwordHash: "h", createdAt: now });
    const err = await again.then(
      () => null,
      (e: Error) => e,
    );
    expect(String(err?.cause ?? err)).toContain("users_email_unique");
    expect(await db.select().from(t.users!)).toHaveLength(1);
  });

  test("deleting a user deletes what hangs from it", async () => {
    await db.insert(t.documents!).values({
      ...{ id: "d1", collectionId: "c1", type: "text", name: "d", status: "queued", createdAt: now, updatedAt: now },
    });
    await db.insert(t.tasks!).values({
      ...{ id: "t1", documentId: "d1", collectionId: "c1", generation: 1, status: "queued", runAfter: now },
      ...{ createdAt: now, updatedAt: now },
    });
    await db.delete(t.users!).where(eq(t.users!.id, "u1"));
    const [left] = await client<{ n: number }[]>`
      SELECT (SELECT count(*) FROM collections) + (SELECT count(*) FROM documents)
           + (SELECT count(*) FROM tasks) + (SELECT count(*) FROM events) AS n`;
    expect(Number(left!.n)).toBe(0);
  });
});
