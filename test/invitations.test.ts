/**
 * People (docs/API.md, Administration and Invitations): an administrator creates an
 * account with a password, or invites a person with a one-time link that works even
 * with sign-up closed and is refused once used, expired or revoked. New accounts get
 * RAGD_DEFAULT_TIER unless told otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { invitations } from "../src/db/schema";
import { createUser } from "../src/features/auth/service";
import { email, makeApp, type TestApp } from "./support/app";

const PASSWORD = "correct horse battery";
let app: TestApp;
let admin: string;

beforeAll(async () => {
  app = await makeApp({ signup: "closed", defaultTier: "pro" });
  // Sign-up is closed: the first account comes from the command line's code.
  const root = await createUser(app.services.db, "root@example.com", PASSWORD, "unlimited");
  expect(root.isAdmin).toBe(true);
  const r = await app.call("POST", "/api/auth/login", { body: { email: root.email, password: PASSWORD } });
  admin = r.headers.get("set-cookie")!.split(";")[0]!;
});
afterAll(() => app.close());

const post = (path: string, body: unknown, cookie = admin) => app.call("POST", path, { body, cookie });
const signIn = (e: string, password = PASSWORD) =>
  app.call("POST", "/api/auth/login", { body: { email: e, password } });
const cookieOf = (r: { headers: Headers }) => r.headers.get("set-cookie")!.split(";")[0]!;

async function audit(action: string) {
  const page = await app.call("GET", "/api/admin/audit", { cookie: admin });
  return page.body.data.filter((e: { action: string }) => e.action === action);
}

describe("an administrator creates an account", () => {
  test("with a password: the account signs in, on RAGD_DEFAULT_TIER, and the audit log says who", async () => {
    const who = email("made");
    const r = await post("/api/admin/users", { email: who, password: PASSWORD });
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ email: who, tier: "pro", isAdmin: false });
    const signedIn = await signIn(who);
    expect(signedIn.status).toBe(200);
    // The administrator knows this password: the user is asked to choose their own.
    expect(signedIn.body.user.mustChangePassword).toBe(true);
    const entry = (await audit("user.created")).find((e: { targetEmail: string }) => e.targetEmail === who);
    expect(entry).toMatchObject({ actor: "root@example.com", details: { tier: "pro", isAdmin: false } });
  });

  test("tier and administrator flag as asked; a duplicate email is 409", async () => {
    const who = email("boss");
    const r = await post("/api/admin/users", { email: who, password: PASSWORD, tier: "free", isAdmin: true });
    expect(r.body.user).toMatchObject({ tier: "free", isAdmin: true });
    expect((await post("/api/admin/users", { email: who.toUpperCase(), password: PASSWORD })).status).toBe(409);
  });

  test("only an administrator may; a bad body is 400", async () => {
    const who = email("plain");
    await post("/api/admin/users", { email: who, password: PASSWORD });
    const plain = cookieOf(await signIn(who));
    const refused = await post("/api/admin/users", { email: email(), password: PASSWORD }, plain);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    for (const body of [
      { email: "not-an-email", password: PASSWORD },
      { email: email(), password: "short" },
      { email: email(), tier: "gold" },
      { email: email(), expiresIn: 721 },
      { email: email(), nickname: "x" },
    ]) {
      const r = await post("/api/admin/users", body);
      expect({ body, status: r.status, code: r.body.error?.code }).toEqual({
        body,
        status: 400,
        code: "invalid_request",
      });
    }
  });
});

describe("invitations", () => {
  test("used once, then refused: the link signs the person in, with sign-up closed", async () => {
    const who = email("invited");
    const made = await post("/api/admin/invitations", { email: who, expiresIn: 24 });
    expect(made.status).toBe(201);
    const { token, url, invitation } = made.body;
    expect(url).toBe(`http://localhost/#/invite/${token}`);
    expect(invitation).toMatchObject({ email: who, tier: "pro", isAdmin: false, status: "pending" });
    const hours = (Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)) / 3_600_000;
    expect(hours).toBe(24);
    // Only the hash is stored: the token appears nowhere in the database.
    const file = new Database(join(app.dataDir, "ragd.db"), { readonly: true });
    const rows = file.query("SELECT * FROM invitations").all();
    file.close();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(made.body.invitation)).not.toContain("tokenHash");

    const info = await post("/api/auth/invitation/check", { token }, "");
    expect(info.body).toMatchObject({ email: who, tier: "pro" });
    const accepted = await post("/api/auth/invitation/accept", { token, password: PASSWORD }, "");
    expect(accepted.status).toBe(201);
    expect(accepted.body.user).toMatchObject({ email: who, tier: "pro", isAdmin: false, mustChangePassword: false });
    const me = await app.call("GET", "/api/auth/me", { cookie: cookieOf(accepted) });
    expect(me.body.user.email).toBe(who);
    expect((await signIn(who)).status).toBe(200);

    const again = await post("/api/auth/invitation/accept", { token, password: "another password" }, "");
    expect(again.status).toBe(410);
    expect(again.body.error.code).toBe("invitation_used");
    expect((await post("/api/auth/invitation/check", { token }, "")).status).toBe(410);
    const listed = await app.call("GET", "/api/admin/invitations", { cookie: admin });
    expect(listed.body.data.find((i: { email: string }) => i.email === who)).toMatchObject({
      status: "used",
      userId: accepted.body.user.id,
    });
    expect((await audit("invitation.accepted"))[0]).toMatchObject({
      actor: who,
      details: { invitedBy: "root@example.com" },
    });
  });

  test("expired, revoked and unknown links are refused", async () => {
    const late = await post("/api/admin/invitations", { email: email("late") });
    const hours = (Date.parse(late.body.invitation.expiresAt) - Date.parse(late.body.invitation.createdAt)) / 3_600_000;
    expect(hours).toBe(72);
    const past = new Date(Date.now() - 1000).toISOString();
    await app.services.db.atomically((tx) =>
      tx.update(invitations).set({ expiresAt: past }).where(eq(invitations.id, late.body.invitation.id)),
    );
    const expired = await post("/api/auth/invitation/accept", { token: late.body.token, password: PASSWORD }, "");
    expect([expired.status, expired.body.error.code]).toEqual([410, "invitation_expired"]);

    const gone = await post("/api/admin/invitations", { email: email("gone"), tier: "free", isAdmin: true });
    const revoked = await post(`/api/admin/invitations/${gone.body.invitation.id}/revoke`, {});
    expect(revoked.body.invitation.status).toBe("revoked");
    const refused = await post("/api/auth/invitation/accept", { token: gone.body.token, password: PASSWORD }, "");
    expect([refused.status, refused.body.error.code]).toEqual([410, "invitation_revoked"]);

    const unknown = await post("/api/auth/invitation/accept", { token: "nope", password: PASSWORD }, "");
    expect([unknown.status, unknown.body.error.code]).toEqual([400, "invalid_request"]);
    const actions = (await audit("invitation.revoked")).map((e: { targetEmail: string }) => e.targetEmail);
    expect(actions).toContain(gone.body.invitation.email);
  });

  test("an invitation goes with its maker's administrator rights", async () => {
    const deputy = email("deputy");
    const made = await post("/api/admin/users", { email: deputy, password: PASSWORD, isAdmin: true });
    expect(made.status).toBe(201);
    const theirs = cookieOf(await signIn(deputy));
    const invited = await post("/api/admin/invitations", { email: email("deputy-alias"), isAdmin: true }, theirs);
    expect(invited.status).toBe(201);
    // Demoted before the link was used: what they granted goes with their rights.
    const demoted = await app.call("PATCH", `/api/admin/users/${made.body.user.id}`, {
      body: { isAdmin: false },
      cookie: admin,
    });
    expect(demoted.status).toBe(200);
    const refused = await post("/api/auth/invitation/accept", { token: invited.body.token, password: PASSWORD }, "");
    expect([refused.status, refused.body.error.code]).toEqual([410, "invitation_revoked"]);
    expect((await post("/api/auth/invitation/check", { token: invited.body.token }, "")).status).toBe(410);
    // The root administrator's own invitations still work.
    const fine = await post("/api/admin/invitations", { email: email("still-fine") });
    expect((await post("/api/auth/invitation/accept", { token: fine.body.token, password: PASSWORD }, "")).status).toBe(
      201,
    );
  });

  test("POST /api/admin/users without a password invites; its tier and flag carry to the account", async () => {
    const who = email("boss-invite");
    const made = await post("/api/admin/users", { email: who, tier: "unlimited", isAdmin: true });
    expect(made.status).toBe(201);
    expect(made.body.user).toBeUndefined();
    const accepted = await post("/api/auth/invitation/accept", { token: made.body.token, password: PASSWORD }, "");
    expect(accepted.body.user).toMatchObject({ email: who, tier: "unlimited", isAdmin: true });
  });

  test("an invitation for an existing account is 409; only administrators list invitations", async () => {
    expect((await post("/api/admin/invitations", { email: "ROOT@example.com" })).status).toBe(409);
    const who = email("nosy");
    await post("/api/admin/users", { email: who, password: PASSWORD });
    const nosy = cookieOf(await signIn(who));
    expect((await app.call("GET", "/api/admin/invitations", { cookie: nosy })).status).toBe(403);
  });
});

test("the OpenAPI document has the routes of people and invitations", async () => {
  const spec = (await app.call("GET", "/docs/openapi.json")).body;
  const paths = Object.keys(spec.paths);
  for (const p of [
    "/api/admin/invitations",
    "/api/admin/invitations/{id}/revoke",
    "/api/auth/invitation/check",
    "/api/auth/invitation/accept",
  ])
    expect(paths).toContain(p);
  expect(Object.keys(spec.paths["/api/admin/users"])).toContain("post");
});
