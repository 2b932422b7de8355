/** Named queries on users and their sessions. */
import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../client";
import { once, ph } from "../prepared";
import { sessions, users, type Tier, type User } from "../schema";

/** Finds a user by email, ignoring case. */
export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).get();
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
  const isAdmin = admin ? sql`1` : sql`(SELECT count(*) = 0 FROM ${users})`;
  return db
    .insert(users)
    .values({ ...user, isAdmin: isAdmin as unknown as boolean })
    .returning()
    .get();
}

/** Finds a user by id. */
export async function findUserById(db: Db, id: string): Promise<User | undefined> {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** Whether a user is disabled, for every key check: undefined when the user is gone. */
export async function findUserState(db: Db, id: string): Promise<{ disabledAt: string | null } | undefined> {
  return once(db, stateById).get({ id });
}

const stateById = (db: Db) =>
  db
    .select({ disabledAt: users.disabledAt })
    .from(users)
    .where(eq(users.id, ph("id")))
    .prepare();

/** Records a sign-in (a new session). */
export async function touchSignIn(db: Db, userId: string, at: string): Promise<void> {
  db.update(users).set({ lastSignInAt: at }).where(eq(users.id, userId)).run();
}

/** Sets a user's tier; returns false when no user has that email. */
export async function updateUserTier(db: Db, email: string, tier: Tier): Promise<boolean> {
  const res = db
    .update(users)
    .set({ tier })
    .where(sql`lower(${users.email}) = lower(${email})`)
    .returning({ id: users.id })
    .all();
  return res.length > 0;
}

export async function insertSession(
  db: Db,
  s: { tokenHash: string; userId: string; createdAt: string; expiresAt: string },
): Promise<void> {
  db.insert(sessions).values(s).run();
}

/** The user behind a live session token hash. */
export async function findUserBySession(
  db: Db,
  tokenHash: string,
  now: string,
): Promise<{ user: User; expiresAt: string } | undefined> {
  return once(db, bySession).get({ tokenHash, now });
}

const bySession = (db: Db) =>
  db
    .select({ user: users, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, ph("tokenHash")), gt(sessions.expiresAt, ph("now"))))
    .prepare();

export async function extendSession(db: Db, tokenHash: string, expiresAt: string): Promise<void> {
  db.update(sessions).set({ expiresAt }).where(eq(sessions.tokenHash, tokenHash)).run();
}

/** Ends every session of a user (disable, password reset), or all but `keep` (a token hash). */
export async function deleteSessionsOf(db: Db, userId: string, keep?: string): Promise<void> {
  const others = keep === undefined ? undefined : ne(sessions.tokenHash, keep);
  db.delete(sessions)
    .where(and(eq(sessions.userId, userId), others))
    .run();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  db.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<number> {
  return db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ t: sessions.tokenHash }).all().length;
}
