/**
 * The product as users get it: the compiled `dist/ragd`, started as a process in
 * an empty directory, driven over real HTTP, stopped with SIGTERM and restarted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { SERVER_ALLOCATOR } from "../src/tools/allocator";
import { tempDir } from "./support/app";
import { ensureBinary, runCli, startBinary, type RunningBinary } from "./support/binary";

let dataDir: string;
let server: RunningBinary;
const jar: { cookie?: string } = {};
const EMAIL = "owner@example.com";
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-bin-");
  server = await startBinary(dataDir);
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("one-shot commands", () => {
  test("version and help", () => {
    const v = runCli(["version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^ragd \d+\.\d+\.\d+/);
    const h = runCli(["help"]);
    expect(h.code).toBe(0);
    for (const s of ["ragd serve", "user create", "user set-tier", "RAGD_PORT", "RAGD_DATA_DIR", "RAGD_SIGNUP"])
      expect(h.stdout).toContain(s);
  });

  const bad: [string, string[], Record<string, string>][] = [
    ["an unknown command", ["frobnicate"], {}],
    ["an unknown flag", ["serve", "--colour", "blue"], {}],
    ["a bad port", ["serve", "--port", "99999"], {}],
    ["a flag without value", ["serve", "--port"], {}],
    ["a bad env value", ["serve"], { RAGD_SIGNUP: "maybe" }],
    ["a bad tier", ["user", "create", "--email", "a@b.co", "--password", "password1", "--tier", "gold"], {}],
  ];
  test.each(bad)("%s exits 2 with one line", (_n, args, env) => {
    const r = runCli(args, env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toStartWith("ragd: ");
  });
});

/** A process's environment variables that start with `prefix` (Linux's /proc). */
const environ = (pid: number, prefix: string) =>
  readFileSync(`/proc/${pid}/environ`, "utf8")
    .split("\0")
    .filter((v) => v.startsWith(prefix));

describe.if(process.platform === "linux")("the server's allocator settings (src/tools/allocator.ts)", () => {
  test("serve became itself again, the same process, with the settings in its environment", () => {
    // Started without them (test/support/binary.ts passes PATH and HOME only).
    const expected = Object.entries(SERVER_ALLOCATOR).map(([k, v]) => `${k}=${v}`);
    expect(environ(server.proc.pid, "MIMALLOC_").sort()).toEqual(expected.sort());
  });

  test("the allocator of the new program reads them, beside a setting of the user's own", async () => {
    const dir = tempDir("ragd-bin-alloc-");
    // mimalloc lists its options on stderr at start when verbose: the restarted program's list.
    const own = await startBinary(dir, { MIMALLOC_VERBOSE: "1", MIMALLOC_PURGE_DELAY: "50" });
    try {
      expect(environ(own.proc.pid, "MIMALLOC_").sort()).toEqual(
        ["MIMALLOC_PURGE_DELAY=50", "MIMALLOC_PURGE_HOLES=0", "MIMALLOC_VERBOSE=1"].sort(),
      );
      expect(own.logs()).toMatch(/option 'purge_holes': 0\b/);
      expect(own.logs()).toMatch(/option 'purge_delay': 50\b/);
      expect((await own.http("/healthz")).body).toEqual({ status: "ok" });
    } finally {
      own.proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the served API over real HTTP", () => {
  let pipelineId: string;
  let key: { id: string; key: string };

  test("health, readiness, docs", async () => {
    expect((await server.http("/healthz")).body).toEqual({ status: "ok" });
    const ready = await server.http("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(["sqlite", "lancedb"]),
    );
    const docs = await server.http("/docs");
    expect(docs.status).toBe(200);
    expect(String(docs.body)).toContain("/docs/assets/swagger-ui-bundle.js");
    const spec = await server.http("/docs/openapi.json");
    expect(spec.body.paths["/api/rag/query"]).toBeDefined();
  });

  test("sign up, create a pipeline and a key, query, revoke", async () => {
    // The first account is an administrator with no pipeline limit: make it first, so
    // the sign-up below is an ordinary user on the free tier.
    const admin = ["user", "create", "--email", "root@example.com", "--password", PASSWORD, "--data-dir", dataDir];
    expect(runCli(admin).code).toBe(0);
    const signup = await server.http("/api/auth/signup", {
      method: "POST",
      json: { email: EMAIL, password: PASSWORD },
      jar,
    });
    expect(signup.status).toBe(201);
    expect((await server.http("/api/auth/me", { jar })).body.user.email).toBe(EMAIL);
    const p = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Handbook" }, jar });
    expect(p.status).toBe(201);
    pipelineId = p.body.id;
    const list = await server.http("/api/rag/pipelines?page=1&pageSize=10&search=hand&status=empty", { jar });
    expect(list.body.total).toBe(1);
    key = (await server.http(`/api/rag/pipelines/${pipelineId}/keys`, { method: "POST", json: { name: "app" }, jar }))
      .body;
    const spare = (
      await server.http(`/api/rag/pipelines/${pipelineId}/keys`, { method: "POST", json: { name: "spare" }, jar })
    ).body;
    const q = await server.http("/api/rag/query", {
      method: "POST",
      json: { query: "vacation policy", topK: 3 },
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(q.status).toBe(200);
    expect(q.body).toEqual({
      results: [],
      pipelineId,
      query: "vacation policy",
      topK: 3,
      noRelevantResults: true,
      queryLanguage: expect.any(String),
    });
    await server.http(`/api/rag/pipelines/${pipelineId}/keys/${spare.id}`, { method: "DELETE", jar });
    const revoked = await server.http("/api/rag/query", {
      method: "POST",
      json: { query: "x" },
      headers: { authorization: `Bearer ${spare.key}` },
    });
    expect(revoked.status).toBe(401);
    const second = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Second" }, jar });
    expect(second.body.error.code).toBe("tier_limit_reached");
  });

  test("the CLI works on the same data dir while the server runs", async () => {
    const created = runCli([
      "user",
      "create",
      "--email",
      "cli@example.com",
      "--password",
      "password123",
      "--data-dir",
      dataDir,
    ]);
    expect(created.code).toBe(0);
    const dup = runCli([
      "user",
      "create",
      "--email",
      "CLI@example.com",
      "--password",
      "password123",
      "--data-dir",
      dataDir,
    ]);
    expect(dup.code).toBe(1);
    const tier = runCli(["user", "set-tier", "--email", EMAIL, "--tier", "pro", "--data-dir", dataDir]);
    expect(tier.code).toBe(0);
    const second = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Second" }, jar });
    expect(second.status).toBe(201);
    const login = await server.http("/api/auth/login", {
      method: "POST",
      json: { email: "cli@example.com", password: "password123" },
      jar: {},
    });
    expect(login.status).toBe(200);
  });

  test("metrics count requests by route and status", async () => {
    const m = await server.http("/metrics");
    expect(m.headers.get("content-type")).toContain("text/plain");
    expect(String(m.body)).toMatch(
      /ragd_http_requests_total\{method="POST",route="\/api\/rag\/query",status="200"\} \d+/,
    );
    expect(String(m.body)).toContain(
      'ragd_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200",le="+Inf"}',
    );
  });

  test("logs are JSON lines and never carry a password, key or cookie", () => {
    const lines = server.logs().trim().split("\n");
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    expect(server.logs()).not.toContain(PASSWORD);
    expect(server.logs()).not.toContain(key.key);
    expect(server.logs()).not.toContain(jar.cookie!.split("=")[1]!);
  });

  test("SIGTERM stops gracefully with exit 0; a restart keeps users, pipelines and keys", async () => {
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    server = await startBinary(dataDir);
    const relog: { cookie?: string } = {};
    expect(
      (await server.http("/api/auth/login", { method: "POST", json: { email: EMAIL, password: PASSWORD }, jar: relog }))
        .status,
    ).toBe(200);
    expect((await server.http(`/api/rag/pipelines/${pipelineId}`, { jar: relog })).body.name).toBe("Handbook");
    const q = await server.http("/api/rag/query", {
      method: "POST",
      json: { query: "x" },
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(q.status).toBe(200);
    // the old session survived the restart too
    expect((await server.http("/api/auth/me", { jar })).status).toBe(200);
  }, 60_000);
});

test("a default embedding model ragd cannot use stops start-up with exit 2", () => {
  const r = runCli(["serve", "--port", "0"], { RAGD_DEFAULT_EMBEDDING_MODEL: "openai/text-embedding-3-small" });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("RAGD_OPENAI_URL");
});
