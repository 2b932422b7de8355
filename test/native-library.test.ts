/**
 * Which cache directory the compiled binary may keep its LanceDB library in
 * (src/vectors/native-library.ts): its own, private one, never one another user could
 * write to or swap. The binary's use of it is in native-cache-binary.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { privateCacheDir } from "../src/vectors/native-library";
import { tempDir } from "./support/app";

describe("the LanceDB library's cache directory", () => {
  test("$XDG_CACHE_HOME/ragd, created 0700", () => {
    const base = tempDir("ragd-xdg-");
    expect(privateCacheDir({ XDG_CACHE_HOME: base })).toBe(join(base, "ragd"));
    expect(statSync(join(base, "ragd")).mode & 0o777).toBe(0o700);
  });

  test("a relative $XDG_CACHE_HOME is ignored for ~/.cache", () => {
    const dir = privateCacheDir({ XDG_CACHE_HOME: "relative/cache" });
    expect(dir === null || dir.endsWith(join(".cache", "ragd"))).toBe(true);
  });

  test("refused: a symbolic link, a directory others may write to, or one inside such a directory", () => {
    const linked = tempDir("ragd-xdg-");
    mkdirSync(join(linked, "elsewhere"), { mode: 0o700 });
    symlinkSync(join(linked, "elsewhere"), join(linked, "ragd"));
    expect(privateCacheDir({ XDG_CACHE_HOME: linked })).toBeNull();

    const open = tempDir("ragd-xdg-");
    mkdirSync(join(open, "ragd"));
    chmodSync(join(open, "ragd"), 0o777);
    expect(privateCacheDir({ XDG_CACHE_HOME: open })).toBeNull();

    // In a shared parent, another user could rename ragd's directory away and put theirs there.
    const shared = tempDir("ragd-xdg-");
    chmodSync(shared, 0o777);
    expect(privateCacheDir({ XDG_CACHE_HOME: shared })).toBeNull();
  });
});
