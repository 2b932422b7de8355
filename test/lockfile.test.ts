/**
 * `npm ci` installs exactly what package-lock.json says, and refuses a lock file that does not
 * list every dependency the packages in it declare, optional platform packages included
 * ("Missing: @lancedb/lancedb-darwin-arm64@ from lock file"). An `npm install` against a registry
 * that lacks some platforms' packages leaves them out; this check finds that before a user's
 * `npm ci` does.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

type Entry = {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const lock = JSON.parse(readFileSync(join(import.meta.dir, "..", "package-lock.json"), "utf8")) as {
  lockfileVersion: number;
  packages: Record<string, Entry>;
};

/** Where npm would find `name` for the package at `path`: its own node_modules, then each parent's. */
function resolve(path: string, name: string): Entry | undefined {
  let dir = path;
  for (;;) {
    const found = lock.packages[`${dir ? `${dir}/` : ""}node_modules/${name}`];
    if (found) return found;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut < 0 ? "" : dir.slice(0, cut);
  }
}

describe("package-lock.json", () => {
  test("is a version 3 lock file", () => {
    expect(lock.lockfileVersion).toBe(3);
  });

  test("lists every optional dependency of every package in it", () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {}))
        if (!resolve(path, name)) missing.push(`${name} (optional, of ${path || "ragd"})`);
    }
    expect(missing).toEqual([]);
  });

  test("lists every dependency of every package in it", () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.dependencies ?? {}))
        if (!resolve(path, name)) missing.push(`${name} (of ${path || "ragd"})`);
    }
    expect(missing).toEqual([]);
  });
});
