/**
 * Accounts and sessions (db/repo/users.ts) through the same repository functions on
 * SQLite and PostgreSQL (support/engines.ts): what each call returns, on both engines.
 */
import { afterAll, expect, test } from "bun:test";
import {
  deleteExpiredSessions,
  deleteSessionsOf,
  extendSession,
  findUserByEmail,
  findUserById,
  findUserBySession,
  findUserState,
  insertSession,
  insertUser,
  touchSignIn,
  updateUserTier,
} from "../src/db/repo/users";
import { openEngines } from "./support/engines";
import { havePostgres } from "./support/postgres";

const { engines, close } = await openEngines();
afterAll(close);

for (const { name, store } of engines) {
  test(`${name}: the first user is an administrator, the next is not; lookups ignore the email's case`, async () => {
    const now = new Date().toISOString();
    const a = await store.atomically((tx) =>
      insertUser(tx, { id: "a1", email: "Ann@Example.com", passwordHash: "h", tier: "free", createdAt: now }),
    );
    const b = await store.atomically((tx) =>
      insertUser(tx, { id: "b1", email: "bob@example.com", passwordHash: "h", tier: "free", createdAt: now }),
    );
    expect([a.isAdmin, b.isAdmin, a.mustChangePassword]).toEqual([true, false, false]);
    expect((await findUserByEmail(store.reader, "ann@example.COM"))?.id).toBe("a1");
    expect(await findUserById(store.reader, "nobody")).toBeUndefined();
    expect(await findUserState(store.reader, "b1")).toEqual({ disabledAt: null });
    expect(await store.atomically((tx) => updateUserTier(tx, "BOB@example.com", "pro"))).toBe(true);
    expect(await store.atomically((tx) => updateUserTier(tx, "none@example.com", "pro"))).toBe(false);
    await store.atomically((tx) => touchSignIn(tx, "b1", now));
    const bob = await findUserById(store.reader, "b1");
    expect([bob?.tier, bob?.lastSignInAt, bob?.isAdmin]).toEqual(["pro", now, false]);
  });

  test(`${name}: sessions are found while live, extended, ended one or all, and pruned once expired`, async () => {
    const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();
    await store.atomically(async (tx) => {
      await insertSession(tx, { tokenHash: "t1", userId: "b1", createdAt: at(0), expiresAt: at(1000) });
      await insertSession(tx, { tokenHash: "t2", userId: "b1", createdAt: at(0), expiresAt: at(5000) });
      await insertSession(tx, { tokenHash: "t3", userId: "a1", createdAt: at(0), expiresAt: at(5000) });
    });
    const live = await findUserBySession(store.reader, "t1", at(500));
    expect([live?.user.id, live?.user.isAdmin, live?.expiresAt]).toEqual(["b1", false, at(1000)]);
    expect(await findUserBySession(store.reader, "t1", at(2000))).toBeUndefined();
    await store.atomically((tx) => extendSession(tx, "t1", at(3000)));
    expect((await findUserBySession(store.reader, "t1", at(2000)))?.expiresAt).toBe(at(3000));
    await store.atomically((tx) => deleteSessionsOf(tx, "b1", "t2"));
    expect(await findUserBySession(store.reader, "t1", at(0))).toBeUndefined();
    expect((await findUserBySession(store.reader, "t2", at(0)))?.user.id).toBe("b1");
    expect(await store.atomically((tx) => deleteExpiredSessions(tx, at(6000)))).toBe(2);
    expect(await findUserBySession(store.reader, "t3", at(0))).toBeUndefined();
  });
}

test("both engines ran where PostgreSQL is installed", () => {
  expect(engines.map((e) => e.name)).toEqual(havePostgres ? ["sqlite", "postgres"] : ["sqlite"]);
});
