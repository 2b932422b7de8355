/** Named queries on invitations (docs/API.md, Invitations). */
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../client";
import { first, tables } from "../dialect";
import type { Invitation } from "../schema";

export async function insertInvitation(db: Db, row: Invitation): Promise<void> {
  const { invitations } = tables(db);
  await db.insert(invitations).values(row);
}

/** The newest first, at most `limit`. */
export async function listInvitations(db: Db, limit: number): Promise<Invitation[]> {
  const { invitations } = tables(db);
  return await db.select().from(invitations).orderBy(desc(invitations.createdAt), desc(invitations.id)).limit(limit);
}

export async function findInvitationById(db: Db, id: string): Promise<Invitation | undefined> {
  const { invitations } = tables(db);
  return first(await db.select().from(invitations).where(eq(invitations.id, id)));
}

export async function findInvitationByHash(db: Db, tokenHash: string): Promise<Invitation | undefined> {
  const { invitations } = tables(db);
  return first(await db.select().from(invitations).where(eq(invitations.tokenHash, tokenHash)));
}

/**
 * Marks an open invitation used by `userId`: one UPDATE whose WHERE is the whole rule
 * (not used, not revoked, not expired at `now`), so two people opening the same link at
 * once cannot both get an account. False when it was no longer open.
 */
export async function useInvitation(db: Db, id: string, userId: string, now: string): Promise<boolean> {
  const { invitations: i } = tables(db);
  const rows = await db
    .update(i)
    .set({ usedAt: now, userId })
    .where(and(eq(i.id, id), isNull(i.usedAt), isNull(i.revokedAt), gt(i.expiresAt, now)))
    .returning({ id: i.id });
  return rows.length > 0;
}

/** Revokes an unused invitation; false when it was used or revoked already. */
export async function revokeInvitation(db: Db, id: string, now: string): Promise<boolean> {
  const { invitations: i } = tables(db);
  const rows = await db
    .update(i)
    .set({ revokedAt: now })
    .where(and(eq(i.id, id), isNull(i.usedAt), isNull(i.revokedAt)))
    .returning({ id: i.id });
  return rows.length > 0;
}
