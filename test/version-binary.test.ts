/**
 * `ragd version`: the compiled binary prints the commit and date its build stamped into
 * it; a run from source prints the checkout's commit, or "unknown" without git.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { tempDir } from "./support/app";
import { ensureBinary, runCli } from "./support/binary";

const root = join(import.meta.dir, "..");

beforeAll(async () => {
  await ensureBinary();
}, 600_000);

/** The `key  value` lines of `ragd version`, after its first line. */
function fields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split(/\s+/, 2) as [string, string]),
  );
}

describe("ragd version", () => {
  test.each([["version"], ["--version"]])("the binary's %s: version, stamped commit and build date", (arg) => {
    const r = runCli([arg]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(`ragd ${pkg.version}\n`);
    const f = fields(r.stdout);
    expect(f.commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
    expect(f.built).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(f.bun).toBe(Bun.version);
    expect(f.platform).toBe(`${process.platform}-${process.arch}`);
  });

  test("from source: the checkout's commit, or unknown where git is not found", () => {
    const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: root }).stdout.toString().trim();
    const run = (PATH: string) =>
      Bun.spawnSync([process.execPath, join(root, "src", "main.ts"), "version"], { cwd: tempDir(), env: { PATH } });
    const withGit = fields(run(process.env.PATH ?? "/usr/bin:/bin").stdout.toString());
    expect(withGit).toMatchObject({ commit: git, built: "source" });
    const withoutGit = fields(run(tempDir()).stdout.toString());
    expect(withoutGit).toMatchObject({ commit: "unknown", built: "source" });
  });
});
