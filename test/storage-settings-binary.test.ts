/**
 * The PostgreSQL and object storage settings through the compiled `dist/ragd`: the commands
 * that copy the data directory cannot copy a database or a bucket, so they refuse to start
 * when one is set, say so plainly, never show the database password or the keys, and write
 * nothing; a database that does not answer stops `serve` with one line naming it; a
 * malformed value is refused naming its setting, as any bad value is. `serve` on a bucket
 * is test/object-storage-serve.test.ts, on PostgreSQL test/postgres-serve.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { BINARY, ensureBinary } from "./support/binary";

const root = tempDir("ragd-storage-settings-");

beforeAll(async () => {
  await ensureBinary();
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

let runs = 0;

/** Runs the binary with `args` and `env` on a data directory of its own; killed if still running after 15 s. */
async function run(args: string[], env: Record<string, string>) {
  const dataDir = join(root, `data-${++runs}`);
  const p = Bun.spawn([BINARY, ...args, "--data-dir", dataDir], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), 15_000);
  const code = await p.exited;
  clearTimeout(timer);
  const stderr = await new Response(p.stderr).text();
  return { code, stderr, wroteDataDir: existsSync(dataDir) };
}

const SERVE = ["serve", "--port", "0"];
const DATABASE = { RAGD_DATABASE_URL: "postgres://ragd:hunter2@db.internal:5432/ragd" };
const STORAGE = {
  RAGD_STORAGE_URL: "s3://ragd-data/prod/",
  RAGD_S3_ENDPOINT: "https://objects.internal:9000",
  RAGD_S3_REGION: "eu-central-1",
  RAGD_S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
  RAGD_S3_SECRET_ACCESS_KEY: "s3cretKey/hunter3",
};

describe("ragd serve with a setting it cannot use as given", () => {
  test("RAGD_DATABASE_URL that does not answer: one line naming it, password hidden, no server", async () => {
    const r = await run(SERVE, { RAGD_DATABASE_URL: "postgres://ragd:hunter2@127.0.0.1:1/ragd" });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("could not use the PostgreSQL database postgres://ragd:***@127.0.0.1:1/ragd");
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stderr).not.toContain('"msg":"listening"');
  }, 30_000);

  test("RAGD_STORAGE_URL without keys: exits 2 asking for them", async () => {
    const r = await run(SERVE, { RAGD_STORAGE_URL: STORAGE.RAGD_STORAGE_URL });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("RAGD_STORAGE_URL (s3://ragd-data/prod) needs RAGD_S3_ACCESS_KEY_ID");
    expect(r.wroteDataDir).toBe(false);
  }, 30_000);

  test("backup, restore, export and import refuse object storage, no key shown", async () => {
    const own: Record<string, string[]> = {
      backup: ["--to", join(root, "b.tar")],
      restore: ["--from", join(root, "b.tar")],
      export: ["--pipeline", "x", "--to", join(root, "e.tar")],
      import: ["--from", join(root, "e.tar"), "--email", "a@example.com"],
    };
    for (const [command, flags] of Object.entries(own)) {
      const r = await run([command, ...flags], STORAGE);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`ragd ${command} works on a data directory alone`);
      expect(r.stderr).toContain("s3://ragd-data/prod");
      expect(r.stderr).not.toContain("hunter3");
      expect(r.stderr).not.toContain("AKIAEXAMPLE");
      expect(r.wroteDataDir).toBe(false);
    }
  }, 60_000);

  test("backup, restore, export and import refuse PostgreSQL too, password hidden", async () => {
    const own: Record<string, string[]> = {
      backup: ["--to", join(root, "b.tar")],
      restore: ["--from", join(root, "b.tar")],
      export: ["--pipeline", "x", "--to", join(root, "e.tar")],
      import: ["--from", join(root, "e.tar"), "--email", "a@example.com"],
    };
    for (const [command, flags] of Object.entries(own)) {
      const r = await run([command, ...flags], DATABASE);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("works on a data directory alone, and RAGD_DATABASE_URL");
      expect(r.stderr).toContain("postgres://ragd:***@db.internal:5432/ragd");
      expect(r.stderr).not.toContain("hunter2");
      expect(r.wroteDataDir).toBe(false);
    }
  }, 60_000);
});

describe("malformed values are refused at start, naming the setting", () => {
  test.each([
    ["RAGD_DATABASE_URL", "the scheme must be postgres", { RAGD_DATABASE_URL: "mysql://ragd:hunter2@db/ragd" }],
    ["RAGD_DATABASE_URL", "no database name", { RAGD_DATABASE_URL: "postgres://ragd:hunter2@db.internal" }],
    ["RAGD_STORAGE_URL", "not a valid bucket name", { RAGD_STORAGE_URL: "s3://Not_A_Bucket/x" }],
    ["RAGD_S3_ENDPOINT", "must be an http(s) URL", { ...STORAGE, RAGD_S3_ENDPOINT: "objects.internal:9000" }],
    ["RAGD_S3_REGION", "must be a region name", { ...STORAGE, RAGD_S3_REGION: "eu central" }],
    ["RAGD_S3_ENDPOINT", "applies only with RAGD_STORAGE_URL", { RAGD_S3_ENDPOINT: "https://objects.internal" }],
    [
      "RAGD_S3_SECRET_ACCESS_KEY",
      "must be set together",
      { RAGD_STORAGE_URL: "s3://ragd-data", RAGD_S3_ACCESS_KEY_ID: "AKIAEXAMPLE" },
    ],
  ])(
    "%s is refused: %s",
    async (name, why, env) => {
      const r = await run(SERVE, env as Record<string, string>);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(name);
      expect(r.stderr).toContain(why);
      expect(r.stderr).not.toContain("hunter2");
      expect(r.wroteDataDir).toBe(false);
    },
    30_000,
  );
});
