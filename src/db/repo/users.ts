/** Named queries on users and their sessions. */
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "../client";
import { once, ph } from "../prepared";
import { sessions, users, type Tier, type User } from "../schema";

/** Finds a user by email, ignoring case. */
export function findUserByEmail(db: Db, email: string): User | undefined {
  return db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).get();
}

export function insertUser(db: Db, user: User): void {
  db.insert(users).values(user).run();
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

export function deleteSession(db: Db, tokenHash: string): void {
  db.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
}

export function deleteExpiredSessions(db: Db, now: string): number {
  return db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ t: sessions.tokenHash }).all().length;
}
