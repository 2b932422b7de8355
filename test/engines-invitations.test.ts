/**
 * Invitations (db/repo/invitations.ts) through the same repository functions on SQLite
 * and PostgreSQL (support/engines.ts): an open invitation is used once; an expired or
 * revoked one is not; a used one cannot be revoked.
 */
import { afterAll, expect, test } from "bun:test";
import {
  findInvitationByHash,
  insertInvitation,
  listInvitations,
  revokeInvitation,
  useInvitation,
} from "../src/db/repo/invitations";
import type { Invitation } from "../src/db/schema";
import { openEngines } from "./support/engines";

const { engines, close } = await openEngines();
afterAll(close);

const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();
const row = (id: string, expiresAt: string): Invitation => ({
  id,
  tokenHash: `hash-${id}`,
  email: `${id}@example.com`,
  tier: "pro",
  isAdmin: false,
  createdAt: at(Number(id.slice(1))),
  expiresAt,
  createdBy: "ada@example.com",
  usedAt: null,
  userId: null,
  revokedAt: null,
});

for (const { name, store } of engines) {
  test(`${name}: used once, never when expired or revoked; the used one stays used`, async () => {
    await store.atomically(async (tx) => {
      await insertInvitation(tx, row("i1", at(10_000)));
      await insertInvitation(tx, row("i2", at(1_000)));
      await insertInvitation(tx, row("i3", at(10_000)));
    });
    expect((await findInvitationByHash(store.reader, "hash-i1"))?.email).toBe("i1@example.com");
    expect(await findInvitationByHash(store.reader, "hash-none")).toBeUndefined();

    expect(await store.atomically((tx) => useInvitation(tx, "i1", "u1", at(5_000)))).toBe(true);
    expect(await store.atomically((tx) => useInvitation(tx, "i1", "u2", at(5_000)))).toBe(false);
    expect(await store.atomically((tx) => useInvitation(tx, "i2", "u3", at(5_000)))).toBe(false);
    expect(await store.atomically((tx) => revokeInvitation(tx, "i3", at(5_000)))).toBe(true);
    expect(await store.atomically((tx) => revokeInvitation(tx, "i3", at(5_000)))).toBe(false);
    expect(await store.atomically((tx) => useInvitation(tx, "i3", "u4", at(5_000)))).toBe(false);
    expect(await store.atomically((tx) => revokeInvitation(tx, "i1", at(6_000)))).toBe(false);

    const listed = await listInvitations(store.reader, 10);
    expect(listed.map((i) => [i.id, i.userId, i.usedAt, i.revokedAt, i.isAdmin])).toEqual([
      ["i3", null, null, at(5_000), false],
      ["i2", null, null, null, false],
      ["i1", "u1", at(5_000), null, false],
    ]);
  });
}
