/** Named queries on users and their sessions. */
import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../client";
import { first, isPg, tables } from "../dialect";
import { once, ph } from "../prepared";
import type { Tier, User } from "../schema";

/** Finds a user by email, ignoring case. */
export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const { users } = tables(db);
  return first(await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`));
}

/**
 * Inserts a user and returns the stored row. The first account of an install is an
 * administrator: decided inside the one INSERT statement, so two first sign-ups
 * racing (or a sign-up beside `ragd user create`) cannot both become the first.
 */
export async function insertUser(
  db: Db,
  user: Pick<User, "id" | "email" | "passwordHash" | "tier" | "createdAt">,
  admin = false,
): Promise<User> {
  const { users } = tables(db);
  const yes = isPg(db) ? sql`true` : sql`1`;
  const isAdmin = admin ? yes : sql`(SELECT count(*) = 0 FROM ${users})`;
  const [row] = await db
    .insert(users)
    .values({ ...user, isAdmin: isAdmin as unknown as boolean })
    .returning();
  return row!;
}

/** True once any account exists (the next one created is then not the administrator). */
export async function anyUser(db: Db): Promise<boolean> {
  const { users } = tables(db);
  return (await db.select({ id: users.id }).from(users).limit(1)).length > 0;
}

/** Finds a user by id. */
export async function findUserById(db: Db, id: string): Promise<User | undefined> {
  const { users } = tables(db);
  return first(await db.select().from(users).where(eq(users.id, id)));
}

/** Whether a user is disabled, for every key check: undefined when the user is gone. */
export async function findUserState(db: Db, id: string): Promise<{ disabledAt: string | null } | undefined> {
  return first(await once(db, stateById).execute({ id }));
}

const stateById = (db: Db) => {
  const { users } = tables(db);
  return db
    .select({ disabledAt: users.disabledAt })
    .from(users)
    .where(eq(users.id, ph("id")))
    .prepare();
};

/** Records a sign-in (a new session). */
export async function touchSignIn(db: Db, userId: string, at: string): Promise<void> {
  const { users } = tables(db);
  await db.update(users).set({ lastSignInAt: at }).where(eq(users.id, userId));
}

/** Sets a user's tier; returns false when no user has that email. */
export async function updateUserTier(db: Db, email: string, tier: Tier): Promise<boolean> {
  const { users } = tables(db);
  const res = await db
    .update(users)
    .set({ tier })
    .where(sql`lower(${users.email}) = lower(${email})`)
    .returning({ id: users.id });
  return res.length > 0;
}

export async function insertSession(
  db: Db,
  s: { tokenHash: string; userId: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db.insert(tables(db).sessions).values(s);
}

/** The user behind a live session token hash. */
export async function findUserBySession(
  db: Db,
  tokenHash: string,
  now: string,
): Promise<{ user: User; expiresAt: string } | undefined> {
  return first(await once(db, bySession).execute({ tokenHash, now }));
}

const bySession = (db: Db) => {
  const { sessions, users } = tables(db);
  return db
    .select({ user: users, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, ph("tokenHash")), gt(sessions.expiresAt, ph("now"))))
    .prepare();
};

export async function extendSession(db: Db, tokenHash: string, expiresAt: string): Promise<void> {
  const { sessions } = tables(db);
  await db.update(sessions).set({ expiresAt }).where(eq(sessions.tokenHash, tokenHash));
}

/** Ends every session of a user (disable, password reset), or all but `keep` (a token hash). */
export async function deleteSessionsOf(db: Db, userId: string, keep?: string): Promise<void> {
  const { sessions } = tables(db);
  const others = keep === undefined ? undefined : ne(sessions.tokenHash, keep);
  await db.delete(sessions).where(and(eq(sessions.userId, userId), others));
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  const { sessions } = tables(db);
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<number> {
  const { sessions } = tables(db);
  return (await db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ t: sessions.tokenHash })).length;
}
