/**
 * Applies the PostgreSQL migrations embedded in the binary (src/db/migrations-pg, generated
 * from the tables pg-schema.ts derives from schema.ts) to a database. Each runs in its own
 * transaction that first takes one transaction-level advisory lock, so that several ragd
 * processes starting at once apply each migration once: the others wait for the lock, then
 * find the migration recorded. PostgreSQL's DDL is transactional, so a migration that fails
 * leaves nothing half done.
 */
import type { SQL } from "bun";
import { migrations as pgMigrations } from "./migrations-pg/index";

/** The advisory lock every ragd process takes to migrate: any constant they agree on ("ragd"). */
const MIGRATION_LOCK = 0x72616764;

export interface PgMigrationResult {
  /** Tags applied by this call, in order. */
  applied: string[];
  /** Tags recorded in the database that this build does not have: a newer ragd migrated it. */
  unknown: string[];
}

/** Applies every migration of `list` not yet recorded in the database's `_migrations` table. */
export async function migratePostgres(sql: SQL, list = pgMigrations): Promise<PgMigrationResult> {
  const applied: string[] = [];
  for (const m of list) {
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      // Under the lock: two processes creating the table at once would collide.
      await tx`CREATE TABLE IF NOT EXISTS _migrations (tag text PRIMARY KEY, applied_at text NOT NULL)`;
      const done = await tx`SELECT 1 FROM _migrations WHERE tag = ${m.tag}`;
      if (done.length > 0) return;
      for (const statement of m.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.unsafe(statement);
      }
      await tx`INSERT INTO _migrations (tag, applied_at) VALUES (${m.tag}, ${new Date().toISOString()})`;
      applied.push(m.tag);
    });
  }
  const known = new Set(list.map((m) => m.tag));
  const recorded = (await sql`SELECT tag FROM _migrations ORDER BY tag`) as { tag: string }[];
  return { applied, unknown: recorded.map((r) => r.tag).filter((t) => !known.has(t)) };
}
