/** Named queries on users and their sessions. */
import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../client";
import { once, ph } from "../prepared";
import { sessions, users, type Tier, type User } from "../schema";

/** Finds a user by email, ignoring case. */
export function findUserByEmail(db: Db, email: string): User | undefined {
  return db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).get();
}

/**
 * Inserts a user and returns the stored row. The first account of an install is an
 * administrator: decided inside the one INSERT statement, so two first sign-ups
 * racing (or a sign-up beside `ragd user create`) cannot both become the first.
 */
export function insertUser(
  db: Db,
  user: Pick<User, "id" | "email" | "passwordHash" | "tier" | "createdAt">,
  admin = false,
): User {
  const isAdmin = admin ? sql`1` : sql`(SELECT count(*) = 0 FROM ${users})`;
  return db
    .insert(users)
    .values({ ...user, isAdmin: isAdmin as unknown as boolean })
    .returning()
    .get();
}

/** Finds a user by id. */
export function findUserById(db: Db, id: string): User | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** Whether a user is disabled, for every key check: undefined when the user is gone. */
export function findUserState(db: Db, id: string): { disabledAt: string | null } | undefined {
  return once(db, stateById).get({ id });
}

const stateById = (db: Db) =>
  db
    .select({ disabledAt: users.disabledAt })
    .from(users)
    .where(eq(users.id, ph("id")))
    .prepare();

/** Records a sign-in (a new session). */
export function touchSignIn(db: Db, userId: string, at: string): void {
  db.update(users).set({ lastSignInAt: at }).where(eq(users.id, userId)).run();
}

/** Sets a user's tier; returns false when no user has that email. */
export function updateUserTier(db: Db, email: string, tier: Tier): boolean {
  const res = db
    .update(users)
    .set({ tier })
    .where(sql`lower(${users.email}) = lower(${email})`)
    .returning({ id: users.id })
    .all();
  return res.length > 0;
}

export function insertSession(
  db: Db,
  s: { tokenHash: string; userId: string; createdAt: string; expiresAt: string },
): void {
  db.insert(sessions).values(s).run();
}

/** The user behind a live session token hash. */
export function findUserBySession(
  db: Db,
  tokenHash: string,
  now: string,
): { user: User; expiresAt: string } | undefined {
  return once(db, bySession).get({ tokenHash, now });
}

const bySession = (db: Db) =>
  db
    .select({ user: users, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, ph("tokenHash")), gt(sessions.expiresAt, ph("now"))))
    .prepare();

export function extendSession(db: Db, tokenHash: string, expiresAt: string): void {
  db.update(sessions).set({ expiresAt }).where(eq(sessions.tokenHash, tokenHash)).run();
}

/** Ends every session of a user (disable, password reset), or all but `keep` (a token hash). */
export function deleteSessionsOf(db: Db, userId: string, keep?: string): void {
  const others = keep === undefined ? undefined : ne(sessions.tokenHash, keep);
  db.delete(sessions)
    .where(and(eq(sessions.userId, userId), others))
    .run();
}

export function deleteSession(db: Db, tokenHash: string): void {
  db.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
}

export function deleteExpiredSessions(db: Db, now: string): number {
  return db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ t: sessions.tokenHash }).all().length;
}
