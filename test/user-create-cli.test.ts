/**
 * `ragd user create` through its entry: the password from standard input when
 * --password is absent, the tier from RAGD_DEFAULT_TIER, and the audit actor from the
 * passwd entry of the effective uid, whatever $USER says.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { nameInPasswd } from "../src/tools/system-account";
import { tempDir } from "./support/app";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const dataDir = tempDir("ragd-user-create-");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `ragd ARGS` from source with `input` on a pipe, and $USER set to a stranger's name. */
async function ragd(args: string[], input: string, env: Record<string, string> = {}) {
  const p = Bun.spawn([process.execPath, MAIN, ...args, "--data-dir", dataDir], {
    stdin: new Blob([input]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin", USER: "mallory", LOGNAME: "mallory", ...env },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr };
}

test("the password comes through a pipe; the tier from RAGD_DEFAULT_TIER; the actor from passwd", async () => {
  const first = await ragd(["user", "create", "--email", "a@example.com", "--init"], "piped password 1\n");
  expect(first.stderr).toBe("");
  expect(first.code).toBe(0);
  const second = await ragd(["user", "create", "--email", "b@example.com"], "piped password 2\r\n", {
    RAGD_DEFAULT_TIER: "unlimited",
  });
  expect(second.stdout).toContain("created user b@example.com (unlimited)");

  // The password is the first line, without its line ending: signing in with it works.
  const { openStore } = await import("../src/db/client");
  const { findUserByEmail } = await import("../src/db/repo/users");
  const db = await openStore(dataDir);
  try {
    const b = await findUserByEmail(db.reader, "b@example.com");
    expect(await Bun.password.verify("piped password 2", b!.passwordHash)).toBe(true);
  } finally {
    await db.close();
  }

  const uid = process.geteuid!();
  const account = nameInPasswd(readFileSync("/etc/passwd", "utf8"), uid) ?? `uid ${uid}`;
  expect(account).not.toBe("mallory");
  const audit = await ragd(["admin", "audit"], "");
  const actors = audit.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).actor);
  expect(actors).toEqual([`cli (${account})`, `cli (${account})`]);
}, 60_000);

/** Reads `out` until `text` has appeared; returns everything read so far. */
async function readUntil(out: ReadableStreamDefaultReader<Uint8Array>, text: string, seen = ""): Promise<string> {
  const decoder = new TextDecoder();
  while (!seen.includes(text)) {
    const { done, value } = await out.read();
    if (done) throw new Error(`ended before "${text}": ${seen}`);
    seen += decoder.decode(value);
  }
  return seen;
}

// `script` (util-linux) gives the command a terminal, as a person at a shell has.
test.skipIf(!Bun.which("script"))(
  "on a terminal it asks twice and echoes nothing",
  async () => {
    const cmd = [process.execPath, MAIN, "user", "create", "--email", "tty@example.com", "--data-dir", dataDir];
    const p = Bun.spawn(["script", "-qec", cmd.join(" "), "/dev/null"], {
      stdin: "pipe",
      stdout: "pipe",
      env: { PATH: process.env.PATH ?? "/usr/bin" },
    });
    const out = p.stdout.getReader();
    let seen = await readUntil(out, "password: ");
    p.stdin.write("typed secret 9\r");
    seen = await readUntil(out, "password again: ", seen);
    p.stdin.write("typed secret 9\r");
    seen = await readUntil(out, "created user tty@example.com", seen);
    p.stdin.end();
    await p.exited;
    expect(seen).not.toContain("typed secret");
  },
  60_000,
);

test("a short or missing password on standard input is refused with exit 2", async () => {
  const none = await ragd(["user", "create", "--email", "c@example.com"], "");
  expect(none.code).toBe(2);
  expect(none.stderr).toContain("at least 8 characters");
  const short = await ragd(["user", "create", "--email", "c@example.com"], "short\nlonger second line\n");
  expect(short.code).toBe(2);
}, 60_000);

test("ragd help says that --password shows the password in process listings", async () => {
  const help = await ragd(["help"], "");
  expect(help.stdout).toContain("ragd user create --email E [--password P]");
  expect(help.stdout).toContain("process listings");
});

test("nameInPasswd reads the entry of the uid asked, not of a name", () => {
  const passwd = "root:x:0:0:root:/root:/bin/bash\nmallory:x:1000:1000::/home/m:/bin/sh\n";
  expect(nameInPasswd(passwd, 0)).toBe("root");
  expect(nameInPasswd(passwd, 1000)).toBe("mallory");
  expect(nameInPasswd(passwd, 42)).toBeUndefined();
});
