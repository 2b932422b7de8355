/**
 * A data directory written by a newer ragd (its database records a migration this build
 * does not have) is refused by the compiled binary, by `serve` and by the commands beside
 * it, with one line and exit code 2, and left as it was.
 */
import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { tempDir } from "./support/app";
import { BINARY, ensureBinary, runCli } from "./support/binary";

const FUTURE = "9999_from_a_newer_ragd";
let dataDir: string;

beforeAll(async () => {
  await ensureBinary();
  dataDir = join(tempDir("ragd-newer-"), "data");
  const init = runCli([
    "user",
    "create",
    "--init",
    "--email",
    "a@example.com",
    "--password",
    "correct horse",
    "--data-dir",
    dataDir,
  ]);
  expect(init.code).toBe(0);
  const db = new Database(join(dataDir, "ragd.db"));
  db.run("INSERT INTO _migrations (tag, applied_at) VALUES (?, ?)", [FUTURE, new Date().toISOString()]);
  db.close();
}, 600_000);

const tags = () => {
  const db = new Database(join(dataDir, "ragd.db"), { readonly: true });
  const rows = db.query("SELECT tag FROM _migrations ORDER BY tag").all() as { tag: string }[];
  db.close();
  return rows.map((r) => r.tag);
};

describe("a data directory from a newer ragd", () => {
  test.each([
    ["serve", ["serve", "--port", "0"]],
    ["user list", ["user", "list"]],
  ])("%s refuses it with one line naming the unknown migration, exit 2", (_name, args) => {
    const before = tags();
    // A build that opened the directory would serve on: it is stopped after 20 s.
    const r = Bun.spawnSync([BINARY, ...args, "--data-dir", dataDir], { cwd: tempDir(), timeout: 20_000 });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.toString().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`ragd: this data directory was written by a newer ragd than ${pkg.version}`);
    expect(lines[0]).toContain(FUTURE);
    expect(tags()).toEqual(before);
  });
});
