/**
 * A new install, in-process: the sign-in methods say whether the first account is still
 * to be made (the dashboard then opens on sign-up), the line `ragd serve` prints for a
 * terminal says the same, and the MCP command route names no executable when ragd runs
 * from source.
 */
import { afterAll, expect, test } from "bun:test";
import { firstRunLine, printFirstRun } from "../src/cli/first-run";
import { runningExecutable } from "../src/features/mcp/command-route";
import { makeApp, type TestApp } from "./support/app";

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

test("GET /api/auth/methods says firstAccount until an account exists, then not", async () => {
  const app = await makeApp();
  apps.push(app);
  expect((await app.call("GET", "/api/auth/methods")).body).toEqual({
    password: true,
    signup: true,
    passwordSignup: true,
    oidc: null,
    firstAccount: true,
  });
  await app.signup();
  expect((await app.call("GET", "/api/auth/methods")).body.firstAccount).toBe(false);
});

test("the terminal line: the dashboard, the data directory, and the administrator while there is no account", async () => {
  const base = { url: "http://127.0.0.1:8484", dataDir: "/srv/ragd" };
  expect(firstRunLine({ ...base, noAccount: true, signupOpen: true })).toBe(
    "ragd is running: open http://127.0.0.1:8484/ in a browser; data in /srv/ragd. " +
      "No account yet: the first account created (Create an account) becomes the administrator.",
  );
  expect(firstRunLine({ ...base, noAccount: true, signupOpen: false })).toContain("ragd user create");
  // With single sign-on there is no password sign-up: the first account comes from the provider.
  expect(firstRunLine({ ...base, noAccount: true, signupOpen: true, sso: "Keycloak" })).toBe(
    "ragd is running: open http://127.0.0.1:8484/ in a browser; data in /srv/ragd. " +
      "No account yet: the first person to sign in with Keycloak becomes the administrator.",
  );
  expect(firstRunLine({ ...base, url: "https://rag.example.com/", noAccount: false, signupOpen: true })).toBe(
    "ragd is running: open https://rag.example.com/ in a browser; data in /srv/ragd.",
  );
  // Only a terminal gets it: a pipe, a service manager's journal or a container's log does not.
  const written: string[] = [];
  const out = (isTTY: boolean) => ({ isTTY, write: (s: string) => written.push(s) });
  const config = { dataDir: "/srv/ragd", signup: "open" as const, oidcIssuer: null, oidcName: "SSO" };
  await printFirstRun(config, base.url, async () => true, out(false));
  expect(written).toEqual([]);
  await printFirstRun(config, base.url, async () => false, out(true));
  expect(written).toEqual(["ragd is running: open http://127.0.0.1:8484/ in a browser; data in /srv/ragd.\n"]);
});

test("GET /api/mcp/command: a session's; null from source, the executable's path when compiled", async () => {
  const app = await makeApp();
  apps.push(app);
  expect((await app.call("GET", "/api/mcp/command")).status).toBe(401);
  const cookie = await app.signup();
  const r = await app.call("GET", "/api/mcp/command", { cookie });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ command: null });
  expect(runningExecutable(true, "/usr/local/bin/ragd")).toBe("/usr/local/bin/ragd");
});
