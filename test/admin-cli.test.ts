/**
 * The administration commands through the compiled binary, beside a running server:
 * what `ragd user …` and `ragd admin audit` change holds in the server at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { adminCalls, expectNothingOf, hasVectorTable, PASSWORD } from "./support/admin";
import { tempDir } from "./support/app";
import { ensureBinary, runCli, startBinary, type RunningBinary } from "./support/binary";
import { waitFor } from "./support/wait";

let dataDir: string;
let server: RunningBinary;
let calls: ReturnType<typeof adminCalls>;
const ADMIN = "root@example.com";

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-admin-cli-");
  server = await startBinary(dataDir, { RAGD_WORKERS: "1" });
  calls = adminCalls(server);
  // The first account, the administrator, signs up; the commands below act beside it.
  expect((await calls.post("/api/auth/signup", {}, { email: ADMIN, password: PASSWORD })).status).toBe(201);
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (path: string, jar: { cookie?: string }, json: unknown = {}) => calls.post(path, jar, json);
const signIn = (email: string, password: string, jar: { cookie?: string } = {}) => calls.signIn(email, password, jar);
const query = (key: string) => calls.query(key);

describe("the command line does what the Admin screen does", () => {
  const cli = (...args: string[]) => runCli([...args, "--data-dir", dataDir]);
  const CAROL = "carol@example.com";
  const DAVE = "dave@example.com";

  test("on a fresh data directory the first account made by the command line is the administrator", () => {
    const fresh = tempDir("ragd-admin-fresh-");
    try {
      const first = runCli([
        "user",
        "create",
        "--email",
        "a@example.com",
        "--password",
        PASSWORD,
        "--data-dir",
        fresh,
        "--init",
      ]);
      expect(first.stdout).toContain("(free, administrator)");
      const second = runCli([
        "user",
        "create",
        "--email",
        "b@example.com",
        "--password",
        PASSWORD,
        "--data-dir",
        fresh,
      ]);
      expect(second.stdout).toContain("(free)");
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  test("user create --admin, set-admin and its last-administrator guard", () => {
    expect(cli("user", "create", "--email", CAROL, "--password", PASSWORD, "--admin").stdout).toContain(
      "administrator",
    );
    expect(cli("user", "create", "--email", DAVE, "--password", PASSWORD).stdout).not.toContain("administrator");
    expect(cli("user", "set-admin", "--email", CAROL, "--revoke").code).toBe(0);
    const last = cli("user", "set-admin", "--email", ADMIN, "--revoke");
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("last administrator");
    expect(cli("user", "disable", "--email", ADMIN).code).toBe(1);
    expect(cli("user", "set-admin", "--email", CAROL).code).toBe(0);
    const list = cli("user", "list");
    expect(list.code).toBe(0);
    const carol = list.stdout.split("\n").find((l) => l.startsWith(CAROL))!;
    expect(carol.split(/\s+/).slice(0, 4)).toEqual([CAROL, "free", "yes", "no"]);
  });

  test("disable and enable hold in the running server at once", async () => {
    expect(cli("user", "disable", "--email", DAVE).code).toBe(0);
    const refused = await signIn(DAVE, PASSWORD);
    expect(refused.body.error.code).toBe("account_disabled");
    expect(cli("user", "enable", "--email", DAVE).code).toBe(0);
    expect((await signIn(DAVE, PASSWORD)).status).toBe(200);
  });

  test("reset-password prints a temporary password that signs in; the old one no longer does", async () => {
    const r = cli("user", "reset-password", "--email", DAVE);
    expect(r.code).toBe(0);
    const temp = r.stdout.trim();
    expect(temp).toMatch(/^[0-9A-Za-z]{16,}$/);
    expect((await signIn(DAVE, PASSWORD)).status).toBe(401);
    expect((await signIn(DAVE, temp)).status).toBe(200);
  });

  test("delete needs --confirm with the email and removes the user's pipelines", async () => {
    const jar: { cookie?: string } = {};
    const temp = cli("user", "reset-password", "--email", DAVE).stdout.trim();
    await signIn(DAVE, temp, jar);
    const p = (await post("/api/rag/pipelines", jar, { name: "Dave's" })).body.id;
    await post(`/api/rag/pipelines/${p}/sources`, jar, { type: "text", content: "Dave parks in bay four." });
    const key = (await post(`/api/rag/pipelines/${p}/keys`, jar, { name: "k" })).body.key;
    await waitFor(
      "dave's source indexed",
      async () => (await server.http(`/api/rag/pipelines/${p}`, { jar })).body.status === "ready",
      60_000,
    );
    expect(hasVectorTable(dataDir, p)).toBe(true);
    expect(cli("user", "delete", "--email", DAVE).code).toBe(2);
    expect(cli("user", "delete", "--email", DAVE, "--confirm", CAROL).code).toBe(1);
    const r = cli("user", "delete", "--email", DAVE, "--confirm", DAVE);
    expect(r.code).toBe(0);
    expect((await query(key)).body.error.code).toBe("invalid_api_key");
    expect((await server.http("/api/auth/me", { jar })).status).toBe(401);
    const daveId = JSON.parse(cli("admin", "audit").stdout.trim().split("\n").at(-1)!).targetId;
    expectNothingOf(dataDir, daveId, p);
  });

  test("help names the commands; the OpenAPI document has the admin routes", async () => {
    const help = runCli(["help"]).stdout;
    for (const c of ["user set-admin", "user list", "user reset-password", "user delete", "admin audit"])
      expect(help).toContain(c);
    const spec = (await server.http("/docs/openapi.json")).body;
    for (const p of ["/api/admin/users", "/api/admin/users/{id}", "/api/admin/users/{id}/disable", "/api/admin/audit"])
      expect(Object.keys(spec.paths)).toContain(p);
  });

  test("admin audit prints JSON lines, the command line named as the actor", () => {
    const r = cli("admin", "audit");
    expect(r.code).toBe(0);
    const entries = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const fromCli = entries.filter((e) => e.actorId === null);
    expect(fromCli.map((e) => e.actor)).toEqual(fromCli.map(() => expect.stringMatching(/^cli \(.+\)$/)));
    expect(fromCli.map((e) => `${e.action} ${e.targetEmail}`)).toEqual([
      `user.created ${CAROL}`,
      `user.created ${DAVE}`,
      `user.admin_revoked ${CAROL}`,
      `user.admin_granted ${CAROL}`,
      `user.disabled ${DAVE}`,
      `user.enabled ${DAVE}`,
      `user.password_reset ${DAVE}`,
      `user.password_reset ${DAVE}`,
      `user.deleted ${DAVE}`,
    ]);
    const last = entries.at(-1).id;
    expect(cli("admin", "audit", "--after", String(last)).stdout).toBe("");
  });
});
