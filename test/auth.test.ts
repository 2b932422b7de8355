import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256 } from "../src/tools/crypto";
import { defaultConfig } from "../src/config";
import { Passwords } from "../src/features/auth/passwords";
import { email, makeApp, TEST_PASSWORD_COST, type TestApp } from "./support/app";

let t: TestApp;
beforeAll(async () => {
  t = await makeApp();
});
afterAll(() => t.close());

describe("sign-up", () => {
  test("creates a user, sets a hardened session cookie and returns the user", async () => {
    const e = email();
    const r = await t.call("POST", "/api/auth/signup", { body: { email: e, password: "password123" } });
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ email: e, tier: "free" });
    expect(Object.keys(r.body.user).sort()).toEqual([
      "createdAt",
      "email",
      "id",
      "isAdmin",
      "mustChangePassword",
      "tier",
    ]);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^ragd_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");
  });

  test("marks the cookie Secure when the request came over https", async () => {
    const r = await t.call("POST", "/api/auth/signup", {
      body: { email: email(), password: "password123" },
      headers: { "x-forwarded-proto": "https" },
    });
    expect(r.headers.get("set-cookie")).toContain("Secure");
  });

  test("refuses a duplicate email, ignoring case", async () => {
    const e = email("dup");
    await t.signup(e);
    const r = await t.call("POST", "/api/auth/signup", { body: { email: e.toUpperCase(), password: "password123" } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("conflict");
  });

  const bad: [string, unknown][] = [
    ["short password", { email: "x@example.com", password: "short" }],
    ["missing password", { email: "x@example.com" }],
    ["not an email", { email: "nope", password: "password123" }],
    ["number email", { email: 5, password: "password123" }],
    ["empty body", {}],
    ["array body", [1, 2]],
  ];
  test.each(bad)("rejects %s with invalid_request", async (_name, body) => {
    const r = await t.call("POST", "/api/auth/signup", { body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(typeof r.body.error.message).toBe("string");
  });

  test("is refused when sign-up is closed", async () => {
    const closed = await makeApp({ signup: "closed" });
    const r = await closed.call("POST", "/api/auth/signup", { body: { email: email(), password: "password123" } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("signup_closed");
    await closed.close();
  });

  test("gives new users the configured default tier", async () => {
    const pro = await makeApp({ defaultTier: "pro" });
    const r = await pro.call("POST", "/api/auth/signup", { body: { email: email(), password: "password123" } });
    expect(r.body.user.tier).toBe("pro");
    await pro.close();
  });
});

describe("sessions", () => {
  test("login gives a fresh token each time; me answers with the user; logout ends it server-side", async () => {
    const e = email();
    await t.signup(e, "password123");
    const a = await t.call("POST", "/api/auth/login", { body: { email: e, password: "password123" } });
    const b = await t.call("POST", "/api/auth/login", { body: { email: e.toUpperCase(), password: "password123" } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const ca = a.headers.get("set-cookie")!.split(";")[0]!;
    const cb = b.headers.get("set-cookie")!.split(";")[0]!;
    expect(ca).not.toBe(cb);
    const me = await t.call("GET", "/api/auth/me", { cookie: ca });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(e);
    const out = await t.call("POST", "/api/auth/logout", {
      cookie: ca,
      headers: { "content-type": "application/json" },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await t.call("GET", "/api/auth/me", { cookie: ca })).status).toBe(401);
    expect((await t.call("GET", "/api/auth/me", { cookie: cb })).status).toBe(200);
  });

  test("stores only a hash of the session token", async () => {
    const cookie = await t.signup();
    const token = cookie.split("=")[1]!;
    const rows = t.services.db.reader.$client.query("SELECT token_hash FROM sessions").all() as {
      token_hash: string;
    }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  test("passwords are argon2id at the server's cost: Bun's 64 MiB and 2 passes unless set", async () => {
    expect(defaultConfig().passwordCost).toEqual({ memoryKib: 65_536, passes: 2 });
    expect(await new Passwords().hash("correct horse")).toStartWith("$argon2id$v=19$m=65536,t=2,");
    const e = email();
    await t.signup(e, "password123");
    const [row] = t.services.db.reader.$client.query("SELECT password_hash FROM users WHERE email = ?").all(e) as {
      password_hash: string;
    }[];
    // This suite's servers hash at a token cost (test/support/app.ts); the hash says which.
    expect(row!.password_hash).toStartWith(
      `$argon2id$v=19$m=${TEST_PASSWORD_COST.memoryKib},t=${TEST_PASSWORD_COST.passes},`,
    );
    expect(await new Passwords().verify("password123", row!.password_hash)).toBe(true);
    expect(await new Passwords().verify("password123", undefined)).toBe(false);
  });

  test("wrong password and unknown user both get 401 with the same message", async () => {
    const e = email();
    await t.signup(e, "password123");
    const wrong = await t.call("POST", "/api/auth/login", { body: { email: e, password: "password999" } });
    const unknown = await t.call("POST", "/api/auth/login", {
      body: { email: email("ghost"), password: "password123" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
  });

  test("me without a cookie, or with a made-up one, is 401 unauthenticated", async () => {
    for (const cookie of [undefined, "ragd_session=made-up"]) {
      const r = await t.call("GET", "/api/auth/me", { cookie });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("unauthenticated");
    }
  });

  test("a cookie set by another site on this host: one that does not decode is no session; two are refused", async () => {
    const mine = await t.signup();
    const bad = await t.call("GET", "/api/auth/me", { cookie: "ragd_session=%zz" });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("unauthenticated");
    // An undecodable one beside the user's own is left out.
    expect((await t.call("GET", "/api/auth/me", { cookie: `ragd_session=%zz; ${mine}` })).status).toBe(200);
    // Another account's valid session planted beside it: which is the user's cannot be told.
    const planted = await t.signup();
    const two = await t.call("GET", "/api/auth/me", { cookie: `${planted}; ${mine}` });
    expect(two.status).toBe(401);
    expect(two.body.error.message).toContain("more than one ragd_session");
    const out = await t.call("POST", "/api/auth/logout", {
      cookie: "ragd_session=%zz",
      headers: { "content-type": "application/json" },
    });
    expect(out.status).toBe(204);
  });

  test("an expired session is refused", async () => {
    const cookie = await t.signup();
    await t.services.db.atomically((tx) =>
      tx.$client.exec("UPDATE sessions SET expires_at = '2000-01-01T00:00:00.000Z'"),
    );
    expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(401);
  });
});

describe("login rate limit", () => {
  test("10 failures for one email from one address within the window lock that pair with 429 and Retry-After", async () => {
    const e = email("locked");
    await t.signup(e, "password123");
    for (let i = 0; i < 10; i++) {
      const r = await t.call("POST", "/api/auth/login", { body: { email: e, password: "wrong-password" } });
      expect(r.status).toBe(401);
    }
    const r = await t.call("POST", "/api/auth/login", { body: { email: e, password: "password123" } });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe("rate_limited");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another email is not affected.
    const other = email();
    await t.signup(other, "password123");
    expect((await t.call("POST", "/api/auth/login", { body: { email: other, password: "password123" } })).status).toBe(
      200,
    );
  });
});

describe("password change limit", () => {
  test("wrong current passwords count with sign-in failures: the 11th try is 429, and so is sign-in", async () => {
    const e = email("changer");
    const cookie = await t.signup(e, "password123");
    for (let i = 0; i < 10; i++) {
      const r = await t.call("POST", "/api/auth/password", {
        cookie,
        body: { currentPassword: `guess-${i}-wrong`, newPassword: "new-password-456" },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.details[0].field).toBe("currentPassword");
    }
    // The right password no longer helps from this address until the window passes.
    const right = await t.call("POST", "/api/auth/password", {
      cookie,
      body: { currentPassword: "password123", newPassword: "new-password-456" },
    });
    expect(right.status).toBe(429);
    expect(right.body.error.code).toBe("rate_limited");
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    const login = await t.call("POST", "/api/auth/login", { body: { email: e, password: "password123" } });
    expect(login.status).toBe(429);
  });
});

describe("password change after a reset", () => {
  test("the temporary password cannot be kept as the new one: 400 newPassword, the change still pending", async () => {
    const e = email("reset");
    await t.signup(e, "password123");
    const me = await t.services.admin.idByEmail(e);
    const { temporaryPassword } = await t.services.admin.resetPassword({ id: null, label: "test" }, me);
    const login = await t.call("POST", "/api/auth/login", { body: { email: e, password: temporaryPassword } });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const same = await t.call("POST", "/api/auth/password", {
      cookie,
      body: { currentPassword: temporaryPassword, newPassword: temporaryPassword },
    });
    expect(same.status).toBe(400);
    expect(same.body.error.code).toBe("invalid_request");
    expect(same.body.error.details).toEqual([
      { field: "newPassword", message: "must differ from your current password" },
    ]);
    expect((await t.call("GET", "/api/auth/me", { cookie })).body.user.mustChangePassword).toBe(true);
    const own = await t.call("POST", "/api/auth/password", {
      cookie,
      body: { currentPassword: temporaryPassword, newPassword: "my-own-password" },
    });
    expect(own.status).toBe(200);
    expect(own.body.user.mustChangePassword).toBe(false);
  });
});

describe("sliding sessions", () => {
  test("a session used after a day is extended, and the cookie is sent again with a fresh Max-Age", async () => {
    const cookie = await t.signup();
    const fresh = await t.call("GET", "/api/auth/me", { cookie });
    expect(fresh.headers.get("set-cookie")).toBeNull();
    const inTenDays = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await t.services.db.atomically((tx) => tx.$client.run("UPDATE sessions SET expires_at = ?", [inTenDays]));
    const used = await t.call("GET", "/api/auth/me", { cookie });
    expect(used.status).toBe(200);
    expect(used.headers.get("set-cookie")).toBe(`${cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=2592000`);
    const rows = t.services.db.reader.$client.query("SELECT expires_at FROM sessions").all() as {
      expires_at: string;
    }[];
    expect(rows.some((r) => Date.parse(r.expires_at) > Date.now() + 29 * 86_400_000)).toBe(true);
  });
});

test("housekeeping deletes expired sessions and keeps live ones", async () => {
  const live = await t.signup();
  const stale = await t.signup();
  const staleHash = sha256(stale.split("=")[1]!);
  await t.services.db.atomically((tx) =>
    tx.$client.run("UPDATE sessions SET expires_at = '2000-01-01T00:00:00.000Z' WHERE token_hash = ?", [staleHash]),
  );
  await t.services.auth.pruneSessions();
  expect(t.services.db.reader.$client.query("SELECT 1 FROM sessions WHERE token_hash = ?").get(staleHash)).toBeNull();
  expect((await t.call("GET", "/api/auth/me", { cookie: live })).status).toBe(200);
});
