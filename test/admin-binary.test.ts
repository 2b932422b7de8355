/**
 * Running ragd for a team, through the compiled binary over real HTTP: the first
 * account is the administrator, who manages other accounts (tier, password,
 * disable, delete) without seeing their pipelines, under the last-administrator
 * guard, with every action in the audit log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adminCalls, expectNothingOf, hasVectorTable, PASSWORD } from "./support/admin";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary, type RunningBinary } from "./support/binary";
import { resolvesWithin, waitFor } from "./support/wait";

let dataDir: string;
let server: RunningBinary;
let calls: ReturnType<typeof adminCalls>;
const admin: { cookie?: string } = {};
const bob: { cookie?: string } = {};
const ADMIN = "root@example.com";
const BOB = "bob@example.com";
const NEW_PASSWORD = "a password of bob's own";

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-admin-");
  server = await startBinary(dataDir, { RAGD_DEFAULT_TIER: "free", RAGD_WORKERS: "1", RAGD_FETCH_ALLOW: "127.0.0.1" });
  calls = adminCalls(server);
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (path: string, jar: { cookie?: string }, json: unknown = {}) => calls.post(path, jar, json);
const signIn = (email: string, password: string, jar: { cookie?: string } = {}) => calls.signIn(email, password, jar);
const query = (key: string) => calls.query(key);

describe("the administrator's lifecycle of an account", () => {
  let bobId = "";
  let bobPipeline = "";
  let bobKey = "";
  let tempPassword = "";

  test("the first sign-up is an administrator with no pipeline limit; the next gets the default tier", async () => {
    const first = await post("/api/auth/signup", admin, { email: ADMIN, password: PASSWORD });
    expect(first.status).toBe(201);
    expect(first.body.user).toMatchObject({ email: ADMIN, tier: "free", isAdmin: true });
    for (const name of ["One", "Two"]) expect((await post("/api/rag/pipelines", admin, { name })).status).toBe(201);

    const second = await post("/api/auth/signup", bob, { email: BOB, password: PASSWORD });
    expect(second.status).toBe(201);
    expect(second.body.user).toMatchObject({ email: BOB, tier: "free", isAdmin: false });
    bobId = second.body.user.id;
    const p = await post("/api/rag/pipelines", bob, { name: "Bob's notes" });
    expect(p.status).toBe(201);
    bobPipeline = p.body.id;
    expect((await post("/api/rag/pipelines", bob, { name: "Again" })).body.error.code).toBe("tier_limit_reached");
  });

  test("the user's pipeline holds a text source, a file, a key and a webhook", async () => {
    const base = `/api/rag/pipelines/${bobPipeline}`;
    const text = await post(`${base}/sources`, bob, { type: "text", content: "Parking bays are shared on Fridays." });
    expect(text.status).toBe(201);
    const file = await post(`${base}/sources`, bob, { type: "file", fileName: "rota.txt", fileSize: 18 });
    expect(file.status).toBe(201);
    const put = await fetch(file.body.uploadUrl, { method: "PUT", body: "Parking rota: bay" });
    expect(put.status).toBe(200);
    const hook = await post(`${base}/webhooks`, bob, { url: "http://127.0.0.1:9/hook" });
    expect(hook.status).toBe(201);
    bobKey = (await post(`${base}/keys`, bob, { name: "app" })).body.key;
    await waitFor(
      "both sources ready",
      async () => {
        const s = await server.http(`${base}`, { jar: bob });
        return s.body.status === "ready" && s.body.sourceCount === 2 && s.body.chunkCount > 0;
      },
      60_000,
    );
    expect((await query(bobKey)).status).toBe(200);
    // What the deletion below must remove is there now.
    expect(readdirSync(join(dataDir, "files", bobPipeline)).length).toBeGreaterThan(0);
    expect(hasVectorTable(dataDir, bobPipeline)).toBe(true);
  });

  test("non-administrators get 403 on every admin route", async () => {
    const tries = [
      server.http("/api/admin/users", { jar: bob }),
      server.http("/api/admin/audit", { jar: bob }),
      post(`/api/admin/users/${bobId}/disable`, bob),
      server.http(`/api/admin/users/${bobId}`, { method: "PATCH", json: { tier: "unlimited" }, jar: bob }),
      // Refused before the body is looked at: a non-administrator learns nothing from a 400.
      server.http(`/api/admin/users/${bobId}`, { method: "PATCH", json: { tier: "gold", x: 1 }, jar: bob }),
    ];
    for (const r of await Promise.all(tries)) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("forbidden");
    }
    expect((await server.http("/api/admin/users")).status).toBe(401);
  });

  test("the administrator lists users with tier, counts and last sign-in, but sees none of their pipelines", async () => {
    const list = await server.http("/api/admin/users", { jar: admin });
    expect(list.status).toBe(200);
    const byEmail = Object.fromEntries(list.body.data.map((u: { email: string }) => [u.email, u]));
    expect(byEmail[ADMIN]).toMatchObject({ isAdmin: true, disabled: false, pipelineCount: 2, chunkCount: 0 });
    expect(byEmail[BOB]).toMatchObject({ id: bobId, tier: "free", isAdmin: false, pipelineCount: 1 });
    expect(byEmail[BOB].chunkCount).toBeGreaterThan(0);
    expect(Date.parse(byEmail[BOB].lastSignInAt)).toBeGreaterThan(Date.now() - 120_000);
    // Administration is not access: another user's pipeline, sources and keys stay 404.
    for (const path of ["", "/sources", "/keys"])
      expect((await server.http(`/api/rag/pipelines/${bobPipeline}${path}`, { jar: admin })).status).toBe(404);
  });

  test("changing a tier holds on the user's next request", async () => {
    const r = await server.http(`/api/admin/users/${bobId}`, { method: "PATCH", json: { tier: "pro" }, jar: admin });
    expect(r.status).toBe(200);
    expect(r.body.user.tier).toBe("pro");
    expect((await server.http("/api/auth/me", { jar: bob })).body.user.tier).toBe("pro");
    const bad = await server.http(`/api/admin/users/${bobId}`, { method: "PATCH", json: { tier: "gold" }, jar: admin });
    expect(bad.status).toBe(400);
    const unknown = await server.http(`/api/admin/users/${bobId}`, {
      method: "PATCH",
      json: { role: "x" },
      jar: admin,
    });
    expect(unknown.status).toBe(400);
  });

  test("a password reset shows a temporary password once, ends sessions, and the old password fails", async () => {
    const r = await post(`/api/admin/users/${bobId}/password-reset`, admin);
    expect(r.status).toBe(200);
    tempPassword = r.body.temporaryPassword;
    expect(tempPassword.length).toBeGreaterThanOrEqual(16);
    expect((await server.http("/api/auth/me", { jar: bob })).status).toBe(401);
    expect((await signIn(BOB, PASSWORD)).status).toBe(401);
    const signedIn = await signIn(BOB, tempPassword, bob);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.mustChangePassword).toBe(true);
  });

  test("after a reset the user chooses their own password; the temporary one then stops working", async () => {
    const other: { cookie?: string } = {};
    await signIn(BOB, tempPassword, other);
    const change = (currentPassword: string) =>
      post("/api/auth/password", bob, { currentPassword, newPassword: NEW_PASSWORD });
    const wrong = await change("not the password");
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].field).toBe("currentPassword");
    const r = await change(tempPassword);
    expect(r.status).toBe(200);
    expect(r.body.user.mustChangePassword).toBe(false);
    // This session goes on; the others end.
    expect((await server.http("/api/auth/me", { jar: bob })).status).toBe(200);
    expect((await server.http("/api/auth/me", { jar: other })).status).toBe(401);
    expect((await signIn(BOB, tempPassword)).status).toBe(401);
    expect((await signIn(BOB, NEW_PASSWORD)).status).toBe(200);
  });

  test("disabling ends sessions, refuses sign-in and stops keys with 401 account_disabled; enabling restores", async () => {
    const stream = await fetch(`${server.url}/api/rag/pipelines/${bobPipeline}/events`, {
      headers: { cookie: bob.cookie! },
    });
    expect(stream.status).toBe(200);
    const r = await post(`/api/admin/users/${bobId}/disable`, admin);
    expect(r.status).toBe(200);
    expect(r.body.user.disabled).toBe(true);
    // The event stream the user had open ends too (it would otherwise stay open for good).
    const ended = await resolvesWithin(stream.text(), 5_000);
    expect(ended).toBe(true);
    expect((await server.http("/api/auth/me", { jar: bob })).status).toBe(401);
    const login = await signIn(BOB, NEW_PASSWORD);
    expect(login.status).toBe(401);
    expect(login.body.error.code).toBe("account_disabled");
    const q = await query(bobKey);
    expect(q.status).toBe(401);
    expect(q.body.error.code).toBe("account_disabled");
    expect(q.body.error.message).toContain("disabled");

    expect((await post(`/api/admin/users/${bobId}/enable`, admin)).body.user.disabled).toBe(false);
    expect((await query(bobKey)).status).toBe(200);
    expect((await signIn(BOB, NEW_PASSWORD, bob)).status).toBe(200);
  });

  test("the last administrator cannot be disabled, demoted or deleted (409)", async () => {
    const me = (await server.http("/api/auth/me", { jar: admin })).body.user.id;
    const tries = [
      await post(`/api/admin/users/${me}/disable`, admin),
      await server.http(`/api/admin/users/${me}`, { method: "PATCH", json: { isAdmin: false }, jar: admin }),
      await server.http(`/api/admin/users/${me}?confirm=${ADMIN}`, { method: "DELETE", jar: admin }),
    ];
    for (const r of tries) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: "conflict" });
      expect(r.body.error.message).toContain("last administrator");
    }
    // With a second administrator the guard lets go, and taking it back works too.
    const grant = await server.http(`/api/admin/users/${bobId}`, {
      method: "PATCH",
      json: { isAdmin: true },
      jar: admin,
    });
    expect(grant.body.user.isAdmin).toBe(true);
    const back = await server.http(`/api/admin/users/${bobId}`, {
      method: "PATCH",
      json: { isAdmin: false },
      jar: admin,
    });
    expect(back.body.user.isAdmin).toBe(false);
  });

  test("admin routes keep the CSRF rule of every session route", async () => {
    const r = await server.http(`/api/admin/users/${bobId}/disable`, {
      method: "POST",
      json: {},
      headers: { origin: "https://evil.example" },
      jar: admin,
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("csrf_rejected");
  });

  test("deleting a user needs their email as confirmation and leaves nothing of theirs", async () => {
    const unconfirmed = await server.http(`/api/admin/users/${bobId}`, { method: "DELETE", jar: admin });
    expect(unconfirmed.status).toBe(400);
    const wrong = await server.http(`/api/admin/users/${bobId}?confirm=${ADMIN}`, { method: "DELETE", jar: admin });
    expect(wrong.status).toBe(400);
    const r = await server.http(`/api/admin/users/${bobId}?confirm=${BOB.toUpperCase()}`, {
      method: "DELETE",
      jar: admin,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deleted: true, id: bobId });

    const q = await query(bobKey);
    expect(q.status).toBe(401);
    expect(q.body.error.code).toBe("invalid_api_key");
    expect((await signIn(BOB, NEW_PASSWORD)).status).toBe(401);
    expect((await server.http(`/api/admin/users/${bobId}`, { jar: admin })).status).toBe(404);
    expectNothingOf(dataDir, bobId, bobPipeline);
  });

  test("the audit log names who did what when, as JSON and as JSON lines", async () => {
    const page = await server.http("/api/admin/audit", { jar: admin });
    expect(page.status).toBe(200);
    const actions = page.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual([
      "user.deleted",
      "user.admin_revoked",
      "user.admin_granted",
      "user.enabled",
      "user.disabled",
      "user.password_reset",
      "user.tier_changed",
    ]);
    for (const e of page.body.data) expect(e).toMatchObject({ actor: ADMIN, targetEmail: BOB, targetId: bobId });
    expect(page.body.data.at(-1).details).toEqual({ from: "free", to: "pro" });
    const first = await server.http("/api/admin/audit?limit=3", { jar: admin });
    expect(first.body.data.map((e: { action: string }) => e.action)).toEqual(actions.slice(0, 3));
    const next = await server.http(`/api/admin/audit?limit=3&before=${first.body.nextBefore}`, { jar: admin });
    expect(next.body.data.map((e: { action: string }) => e.action)).toEqual(actions.slice(3, 6));
    expect((await server.http("/api/admin/audit?limit=0", { jar: admin })).status).toBe(400);

    const lines = await fetch(`${server.url}/api/admin/audit?format=jsonl`, { headers: { cookie: admin.cookie! } });
    expect(lines.headers.get("content-type")).toContain("application/x-ndjson");
    const parsed = (await lines.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(parsed.map((e) => e.action)).toEqual([...actions].reverse());
    expect(Date.parse(parsed[0].at)).toBeGreaterThan(Date.now() - 600_000);
  });
});
