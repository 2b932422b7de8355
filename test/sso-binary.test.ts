/**
 * Single sign-on through the compiled binary against a real OpenID Connect provider
 * (the oidc-provider library) on loopback: the whole authorization code flow, with the
 * provider's own login and consent forms submitted the way a browser would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { tempDir } from "./support/app";
import { ensureBinary, runCli, startBinary, type RunningBinary } from "./support/binary";
import { Browser } from "./support/browser";
import { startTestProvider, type TestProvider } from "./support/oidc-provider";

let provider: TestProvider;
/** Passwords and single sign-on both on. */
let both: RunningBinary;
/** RAGD_PASSWORD_LOGIN=off. */
let ssoOnly: RunningBinary;
/** RAGD_SIGNUP=closed. */
let closed: RunningBinary;
const dirs: string[] = [];
const CALLBACK = "/api/auth/oidc/callback";
/** Email claims of some logins at the provider, each one sign-up would refuse, and one with spaces. */
const ODD_EMAILS: Record<string, string> = {
  "odd-plain": "notanemail",
  "odd-script": "<script>@x.test",
  "odd-long": `${"a".repeat(407)}@example.test`,
  spaced: "  Hank@example.test ",
};

beforeAll(async () => {
  await ensureBinary();
  provider = await startTestProvider(ODD_EMAILS);
  const env = {
    RAGD_OIDC_ISSUER: provider.issuer,
    RAGD_OIDC_CLIENT_ID: provider.clientId,
    RAGD_OIDC_CLIENT_SECRET: provider.clientSecret,
    RAGD_OIDC_NAME: "Example Corp",
  };
  dirs.push(tempDir("ragd-sso-"), tempDir("ragd-sso-"), tempDir("ragd-sso-"));
  both = await startBinary(dirs[0]!, env);
  ssoOnly = await startBinary(dirs[1]!, { ...env, RAGD_PASSWORD_LOGIN: "off" });
  closed = await startBinary(dirs[2]!, { ...env, RAGD_SIGNUP: "closed" });
  provider.register([both.url + CALLBACK, ssoOnly.url + CALLBACK, closed.url + CALLBACK]);
}, 120_000);

afterAll(async () => {
  both?.proc.kill("SIGKILL");
  ssoOnly?.proc.kill("SIGKILL");
  closed?.proc.kill("SIGKILL");
  await provider?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function me(server: RunningBinary, session: string | undefined) {
  return server.http("/api/auth/me", { jar: { cookie: `ragd_session=${session}` } });
}

describe("single sign-on", () => {
  test("the sign-in methods are public and name the provider", async () => {
    const res = await both.http("/api/auth/methods");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      password: true,
      signup: true,
      passwordSignup: false,
      oidc: { name: "Example Corp", startUrl: "/api/auth/oidc/start" },
      // No one has signed in yet: the first account made is the administrator.
      firstAccount: true,
    });
  });

  test("the first sign-in creates the account; the next one reuses it", async () => {
    const first = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "alice", both.url);
    expect(first.status).toBe(303);
    expect(first.location).toBe("/");
    expect(first.session).toBeString();
    const a = await me(both, first.session);
    expect(a.status).toBe(200);
    expect(a.body.user.email).toBe("alice@example.test");
    expect(a.body.user.tier).toBe("free");

    const second = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "alice", both.url);
    expect(second.status).toBe(303);
    expect(second.session).not.toBe(first.session);
    const b = await me(both, second.session);
    expect(b.body.user.id).toBe(a.body.user.id);
    expect(both.logs()).toContain('"msg":"signed in with single sign-on"');
  });

  test("no one signs up with a password: a colleague's account cannot be made before their first sign-in", async () => {
    const squat = await both.http("/api/auth/signup", {
      method: "POST",
      json: { email: "frank@example.test", password: "attacker-chosen" },
    });
    expect(squat.status).toBe(403);
    expect(squat.body.error.code).toBe("signup_closed");
    const flow = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "frank", both.url);
    expect(flow.status).toBe(303);
    const login = await both.http("/api/auth/login", {
      method: "POST",
      json: { email: "frank@example.test", password: "attacker-chosen" },
    });
    expect(login.status).toBe(401);
  });

  test("an account made with a password is matched by its email, whatever the case", async () => {
    const made = runCli(["user", "create", "--email", "Bob@Example.test", "--password", "a-long-password"], {
      RAGD_DATA_DIR: dirs[0]!,
    });
    expect(made.code).toBe(0);
    const login = await both.http("/api/auth/login", {
      method: "POST",
      json: { email: "bob@example.test", password: "a-long-password" },
    });
    expect(login.status).toBe(200);
    const flow = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "bob", both.url);
    expect(flow.status).toBe(303);
    expect((await me(both, flow.session)).body.user.id).toBe(login.body.user.id);
  });

  test("an email the provider has not verified is refused with a clear page", async () => {
    const flow = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "unverified-carol", both.url);
    expect(flow.status).toBe(403);
    expect(flow.body).toContain("has not verified unverified-carol@example.test");
    expect(flow.body).toContain("email_not_verified");
    expect(flow.session).toBeUndefined();
  });

  test.each(["odd-plain", "odd-script", "odd-long"])(
    "%s: an email sign-up would refuse makes no account, with a clear page",
    async (login) => {
      const flow = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, login, both.url);
      expect(flow.status).toBe(403);
      expect(flow.body).toContain("shared an email that is not a valid address of at most 320 characters");
      expect(flow.body).toContain("<code>forbidden</code>");
      expect(flow.body).not.toContain("<script>");
      expect(flow.session).toBeUndefined();
      const listed = runCli(["user", "list", "--data-dir", dirs[0]!]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain(ODD_EMAILS[login]!.slice(0, 10));
    },
  );

  test("an email with surrounding spaces is trimmed: one account, found again on the next sign-in", async () => {
    const first = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "spaced", both.url);
    expect(first.status).toBe(303);
    const a = await me(both, first.session);
    expect(a.body.user.email).toBe("Hank@example.test");
    const second = await new Browser().signIn(`${both.url}/api/auth/oidc/start`, "spaced", both.url);
    expect(second.status).toBe(303);
    expect((await me(both, second.session)).body.user.id).toBe(a.body.user.id);
  });

  test("a callback without the browser's pending sign-in is refused", async () => {
    const browser = new Browser();
    const start = await browser.go(`${both.url}/api/auth/oidc/start`);
    expect(start.status).toBe(303);
    const state = new URL(start.headers.get("location")!).searchParams.get("state");
    // Another browser (no ragd_oidc cookie) arriving with this state: a login-CSRF attempt.
    const res = await fetch(`${both.url}${CALLBACK}?code=made-up&state=${state}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("sso_failed");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("ragd_session="))).toBe(false);
  });

  test("with passwords off, sign-up and password sign-in are 403 and sign-on still works", async () => {
    const methods = await ssoOnly.http("/api/auth/methods");
    expect(methods.body.password).toBe(false);
    const made = runCli(["user", "create", "--email", "dave@example.test", "--password", "a-long-password"], {
      RAGD_DATA_DIR: dirs[1]!,
    });
    expect(made.code).toBe(0);
    for (const path of ["/api/auth/signup", "/api/auth/login"]) {
      const res = await ssoOnly.http(path, {
        method: "POST",
        json: {
          email: path.endsWith("signup") ? "eve@example.test" : "dave@example.test",
          password: "a-long-password",
        },
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("password_login_disabled");
    }
    const flow = await new Browser().signIn(`${ssoOnly.url}/api/auth/oidc/start`, "dave", ssoOnly.url);
    expect(flow.status).toBe(303);
    expect((await me(ssoOnly, flow.session)).body.user.email).toBe("dave@example.test");
    // Nor can a signed-in user set a password the operator turned off.
    const change = await ssoOnly.http("/api/auth/password", {
      method: "POST",
      json: { currentPassword: "a-long-password", newPassword: "another-long-password" },
      jar: { cookie: `ragd_session=${flow.session}` },
    });
    expect(change.status).toBe(403);
    expect(change.body.error.code).toBe("password_login_disabled");
    // A disabled account does not get in through the provider either. (Dave, the first
    // account, is the administrator: another one must exist before he can be disabled.)
    const admin = runCli(
      ["user", "create", "--email", "root@example.test", "--password", "a-long-password", "--admin"],
      { RAGD_DATA_DIR: dirs[1]! },
    );
    expect(admin.code).toBe(0);
    const off = runCli(["user", "disable", "--email", "dave@example.test"], { RAGD_DATA_DIR: dirs[1]! });
    expect(off.code).toBe(0);
    const refused = await new Browser().signIn(`${ssoOnly.url}/api/auth/oidc/start`, "dave", ssoOnly.url);
    expect(refused.status).toBe(401);
    expect(refused.body).toContain("account_disabled");
    expect(refused.session).toBeUndefined();
  });
});

test("with sign-up closed, only people who have an account get in", async () => {
  const stranger = await new Browser().signIn(`${closed.url}/api/auth/oidc/start`, "grace", closed.url);
  expect(stranger.status).toBe(403);
  expect(stranger.body).toContain("signup_closed");
  expect(stranger.session).toBeUndefined();
  const made = runCli(["user", "create", "--email", "grace@example.test", "--password", "a-long-password"], {
    RAGD_DATA_DIR: dirs[2]!,
  });
  expect(made.code).toBe(0);
  const member = await new Browser().signIn(`${closed.url}/api/auth/oidc/start`, "grace", closed.url);
  expect(member.status).toBe(303);
  expect((await me(closed, member.session)).body.user.email).toBe("grace@example.test");
});

describe("single sign-on settings", () => {
  const issuer = { RAGD_OIDC_ISSUER: "https://id.example.test", RAGD_OIDC_CLIENT_ID: "ragd" };
  const cases: [string, Record<string, string>, RegExp][] = [
    ["an issuer without its client secret", issuer, /must be set together/],
    [
      "plain http to an issuer that is not on loopback",
      { ...issuer, RAGD_OIDC_ISSUER: "http://id.example.test", RAGD_OIDC_CLIENT_SECRET: "s" },
      /must be https unless it is on loopback/,
    ],
    ["passwords off without single sign-on", { RAGD_PASSWORD_LOGIN: "off" }, /needs single sign-on/],
  ];
  for (const [what, env, message] of cases) {
    test(`${what} stops the server with exit code 2`, () => {
      dirs.push(tempDir("ragd-sso-cfg-"));
      const res = runCli(["serve", "--data-dir", dirs.at(-1)!], env);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(message);
    });
  }
});

test("an issuer that does not answer makes sign-on a 503 page, and the rest of ragd keeps working", async () => {
  const dir = tempDir("ragd-sso-down-");
  dirs.push(dir);
  // A loopback port with nothing behind it.
  const gone = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = gone.port;
  gone.stop(true);
  const server = await startBinary(dir, {
    RAGD_OIDC_ISSUER: `http://127.0.0.1:${port}`,
    RAGD_OIDC_CLIENT_ID: "ragd",
    RAGD_OIDC_CLIENT_SECRET: "secret",
  });
  try {
    const res = await fetch(`${server.url}/api/auth/oidc/start`, { redirect: "manual" });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("sso_unavailable");
    expect((await server.http("/api/auth/methods")).body.oidc).not.toBeNull();
    expect(server.logs()).toContain("identity provider discovery failed");
  } finally {
    server.proc.kill("SIGKILL");
  }
});

test("cancelling at the provider comes back as a clear 400 page", async () => {
  const browser = new Browser();
  let res = await browser.go(`${both.url}/api/auth/oidc/start`);
  let url = new URL(res.headers.get("location")!, both.url).href;
  // Follow the provider's redirects to its login page, then take its "cancel" link.
  while ((res = await browser.go(url)).headers.get("location")) url = new URL(res.headers.get("location")!, url).href;
  expect(new URL(url).pathname).toStartWith("/interaction/");
  res = await browser.go(`${url}/abort`);
  url = new URL(res.headers.get("location")!, url).href;
  while (new URL(url).origin !== both.url) {
    res = await browser.go(url);
    url = new URL(res.headers.get("location")!, url).href;
  }
  expect(new URL(url).pathname).toBe(CALLBACK);
  const back = await browser.go(url);
  expect(back.status).toBe(400);
  const page = await back.text();
  expect(page).toContain("the identity provider refused the sign-in (access_denied)");
  expect(back.headers.getSetCookie().some((c) => c.startsWith("ragd_oidc=;"))).toBe(true);
  expect(browser.cookie(both.url, "ragd_session")).toBeUndefined();
});
