/**
 * The data directory is private to the user ragd runs as (docs/security.md): the
 * compiled binary, started under the usual umask 022, creates it 0700 with files 0600,
 * tightens one an older ragd left open, and `ragd user create --init`, `ragd backup` and
 * `ragd restore` write nothing others can read either.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, runCli, signUp, startBinary } from "./support/binary";

const dirs: string[] = [];
let server: RunningBinary | undefined;

beforeAll(async () => {
  await ensureBinary();
});

afterAll(() => {
  server?.proc.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `fn` (which starts a process) under `mask`, as a shell with that umask would. */
function underUmask<T>(mask: number, fn: () => T): T {
  const before = process.umask(mask);
  try {
    return fn();
  } finally {
    process.umask(before);
  }
}

const modeOf = (path: string) => lstatSync(path).mode & 0o777;

/** Every entry under `dir` (and `dir` itself) that a group or other user may use, with its mode. */
function openToOthers(dir: string): string[] {
  const found = (statSync(dir).mode & 0o077) === 0 ? [] : [`. ${modeOf(dir).toString(8)}`];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const st = lstatSync(join(dir, name));
    if (!st.isSymbolicLink() && st.mode & 0o077) found.push(`${name} ${(st.mode & 0o777).toString(8)}`);
  }
  return found;
}

const fresh = () => {
  const parent = tempDir("ragd-private-");
  dirs.push(parent);
  return join(parent, "data");
};

describe("ragd serve", () => {
  const dataDir = fresh();

  test("creates the data directory 0700 and everything in it private", async () => {
    server = await underUmask(0o022, () => startBinary(dataDir));
    expect(await signUp(server, "ada@example.test", {})).toBe(201);
    const names = readdirSync(dataDir);
    expect(names).toContain("ragd.db");
    expect(names).toContain("secret.key");
    expect(openToOthers(dataDir)).toEqual([]);
    expect(server.logs()).not.toContain("only this user may read it now");
  });

  test("tightens a data directory left open to others, with one log line, and only it", async () => {
    server!.proc.kill("SIGTERM");
    expect(await server!.proc.exited).toBe(0);
    const outside = join(dataDir, "..", "shared-notes.txt");
    writeFileSync(outside, "not ragd's");
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dataDir, "notes-link"));
    for (const name of ["ragd.db", "secret.key"]) chmodSync(join(dataDir, name), 0o644);
    chmodSync(dataDir, 0o755);
    server = await underUmask(0o022, () => startBinary(dataDir));
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, "ragd.db"))).toBe(0o600);
    expect(modeOf(join(dataDir, "secret.key"))).toBe(0o600);
    expect(openToOthers(dataDir)).toEqual([]);
    // What a link in it points to is not ragd's to change.
    expect(modeOf(outside)).toBe(0o644);
    const lines = server
      .logs()
      .split("\n")
      .filter((l) => l.includes("only this user may read it now"));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", tightened: [".", "ragd.db", "secret.key"] });
    // The files written since are private too, and the user is still there.
    const login = { email: "ada@example.test", password: "correct horse battery" };
    expect((await server.http("/api/auth/login", { method: "POST", json: login })).status).toBe(200);
    expect(openToOthers(dataDir)).toEqual([]);
  });
});

test("ragd user create --init, ragd backup and ragd restore write nothing others can read", () => {
  const dataDir = fresh();
  const run = (args: string[]) => underUmask(0o022, () => runCli(args));
  const made = run([
    "user",
    "create",
    "--init",
    "--email",
    "bo@example.test",
    "--password",
    "a-long-password",
    "--data-dir",
    dataDir,
  ]);
  expect(made.code).toBe(0);
  expect(openToOthers(dataDir)).toEqual([]);
  const archive = join(dataDir, "..", "ragd.backup");
  expect(run(["backup", "--to", archive, "--data-dir", dataDir]).code).toBe(0);
  expect(modeOf(archive)).toBe(0o600);
  const restored = join(dataDir, "..", "restored");
  const back = run(["restore", "--from", archive, "--data-dir", restored]);
  expect(back.code).toBe(0);
  expect(readdirSync(restored)).toContain("ragd.db");
  expect(openToOthers(restored)).toEqual([]);
});
