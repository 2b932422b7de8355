/**
 * Named queries of the administration: every user with their counts, and the
 * changes guarded so that an install always keeps one enabled administrator. Each
 * guarded change is one UPDATE whose WHERE holds the guard, so a change made by
 * `ragd user …` beside a running server cannot slip between a check and a write.
 */
import { and, asc, desc, eq, gt, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { first, isPg, tables } from "../dialect";
import type { AuditRow, Tier, User } from "../schema";

export interface UserWithStats {
  user: User;
  pipelineCount: number;
  chunkCount: number;
}

const userId = sql.raw(`"users"."id"`);

/** Every user, oldest first, with their pipeline and chunk counts. */
export async function listUsersWithStats(db: Db): Promise<UserWithStats[]> {
  return usersWhere(db);
}

/** One user with their counts. */
export async function findUserWithStats(db: Db, id: string): Promise<UserWithStats | undefined> {
  return (await usersWhere(db, eq(tables(db).users.id, id)))[0];
}

async function usersWhere(db: Db, where?: SQL): Promise<UserWithStats[]> {
  const { users, collections, documents } = tables(db);
  // count(*) and sum() are bigint/numeric on PostgreSQL, read as strings: Number() below.
  const pipelineCount = sql<number>`(SELECT count(*) FROM ${collections} c WHERE c.user_id = ${userId} AND c.kind = 'pipeline')`;
  // Chunks of all the user's collections, pipelines and knowledge bases alike: what they store.
  const chunkCount = sql<number>`(SELECT coalesce(sum(d.chunk_count), 0) FROM ${documents} d
  JOIN ${collections} c ON c.id = d.collection_id WHERE c.user_id = ${userId})`;
  const rows = await db
    .select({ user: users, pipelineCount, chunkCount })
    .from(users)
    .where(where)
    .orderBy(asc(users.createdAt), asc(users.id));
  return rows.map((r) => ({ user: r.user, pipelineCount: Number(r.pipelineCount), chunkCount: Number(r.chunkCount) }));
}

/** SQL's true and false for `db`: 1 and 0 on SQLite, booleans on PostgreSQL. */
const truth = (db: Db, yes: boolean) => (isPg(db) ? (yes ? sql`true` : sql`false`) : yes ? sql`1` : sql`0`);

/** True while another enabled administrator than `id` exists: the guard of the last one. */
const anotherAdmin = (db: Db, id: string) =>
  sql`EXISTS (SELECT 1 FROM ${tables(db).users} o WHERE o.is_admin = ${truth(db, true)} AND o.disabled_at IS NULL AND o.id <> ${id})`;

/** A user that is not an enabled administrator, or one that is not the last. */
const notLastAdmin = (db: Db, id: string) => {
  const { users } = tables(db);
  return sql`(${users.isAdmin} = ${truth(db, false)} OR ${users.disabledAt} IS NOT NULL OR ${anotherAdmin(db, id)})`;
};

/** Grants or takes administration; "last_admin" when it would leave none. */
export async function updateUserAdmin(db: Db, id: string, isAdmin: boolean): Promise<"ok" | "missing" | "last_admin"> {
  const { users } = tables(db);
  const guard = isAdmin ? truth(db, true) : notLastAdmin(db, id);
  const changed = await db
    .update(users)
    .set({ isAdmin })
    .where(and(eq(users.id, id), guard))
    .returning({ id: users.id });
  if (changed.length) return "ok";
  return first(await db.select({ id: users.id }).from(users).where(eq(users.id, id))) ? "last_admin" : "missing";
}

/** Disables (at `at`) or enables a user; "last_admin" when disabling would leave no administrator. */
export async function updateUserDisabled(
  db: Db,
  id: string,
  at: string | null,
): Promise<"ok" | "missing" | "last_admin"> {
  const { users } = tables(db);
  const guard = at === null ? truth(db, true) : notLastAdmin(db, id);
  // A user already disabled keeps the time it was first disabled.
  const value = at === null ? null : sql`coalesce(${users.disabledAt}, ${at})`;
  const changed = await db
    .update(users)
    .set({ disabledAt: value as string | null })
    .where(and(eq(users.id, id), guard))
    .returning({ id: users.id });
  if (changed.length) return "ok";
  return first(await db.select({ id: users.id }).from(users).where(eq(users.id, id))) ? "last_admin" : "missing";
}

export async function updateUserTierById(db: Db, id: string, tier: Tier): Promise<void> {
  const { users } = tables(db);
  await db.update(users).set({ tier }).where(eq(users.id, id));
}

/** Sets a password hash; `temporary` marks an administrator's reset, to be replaced by the user. */
export async function updateUserPassword(db: Db, id: string, passwordHash: string, temporary: boolean): Promise<void> {
  const { users } = tables(db);
  await db.update(users).set({ passwordHash, mustChangePassword: temporary }).where(eq(users.id, id));
}

/** Ids of every collection (pipelines and knowledge bases) a user owns. */
export async function collectionIdsOf(db: Db, userId: string): Promise<string[]> {
  const { collections } = tables(db);
  return (await db.select({ id: collections.id }).from(collections).where(eq(collections.userId, userId))).map(
    (r) => r.id,
  );
}

/** Whether a collection still exists and its owner is enabled (open event streams ask this). */
export async function collectionOwnerActive(db: Db, collectionId: string): Promise<boolean> {
  const { collections, users } = tables(db);
  const row = first(
    await db
      .select({ disabledAt: users.disabledAt })
      .from(collections)
      .innerJoin(users, eq(users.id, collections.userId))
      .where(eq(collections.id, collectionId)),
  );
  return row !== undefined && row.disabledAt === null;
}

/** Deletes the user row; sessions (and any collection left) go by ON DELETE CASCADE. */
export async function deleteUserRow(db: Db, id: string): Promise<void> {
  const { users } = tables(db);
  await db.delete(users).where(eq(users.id, id));
}

export async function insertAudit(db: Db, row: Omit<AuditRow, "id">): Promise<void> {
  const { auditLog } = tables(db);
  await db.insert(auditLog).values(row);
}

/** Audit entries: newest first below `before` (an id), or oldest first above `after`. */
export async function listAudit(db: Db, opts: { limit: number; before?: number; after?: number }): Promise<AuditRow[]> {
  const { auditLog } = tables(db);
  if (opts.after !== undefined)
    return await db
      .select()
      .from(auditLog)
      .where(gt(auditLog.id, opts.after))
      .orderBy(asc(auditLog.id))
      .limit(opts.limit);
  return await db
    .select()
    .from(auditLog)
    .where(opts.before === undefined ? undefined : lt(auditLog.id, opts.before))
    .orderBy(desc(auditLog.id))
    .limit(opts.limit);
}
