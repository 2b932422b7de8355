/**
 * The compiled binary's LanceDB library (src/vectors/native-library.ts): embedded
 * compressed, written once into the private cache directory by the first start, loaded from
 * there by later starts without being rewritten; another release's copy unused for a week
 * is removed, one in use stays, a copy of the wrong size is replaced, and
 * a cache directory others may write to is not used (the library then goes to a private
 * temporary directory, removed once loaded).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary } from "./support/binary";

beforeAll(async () => {
  await ensureBinary();
}, 600_000);

/** Starts the binary with its own cache and temporary directories, checks LanceDB answers, stops it. */
async function startAndStop(cacheHome: string, tmp: string): Promise<void> {
  const server = await startBinary(
    tempDir("ragd-data-"),
    { XDG_CACHE_HOME: cacheHome, TMPDIR: tmp },
    undefined,
    90_000,
  );
  try {
    const ready = await server.http("/readyz");
    expect(ready.body.checks).toContainEqual({ name: "lancedb", ok: true });
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
  }
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

/** Copies of the library in a temporary directory: Bun's, or the private one of a start without a cache. */
function libraryCopies(tmp: string): string[] {
  return readdirSync(tmp).filter((f) => f.endsWith(".node") || f.startsWith("ragd-lancedb-"));
}

describe("the LanceDB library's cache", () => {
  test("the first start writes it once, privately, named by its hash, in place of an unused one; later starts reuse it", async () => {
    const home = tempDir("ragd-cache-");
    const tmp = tempDir("ragd-tmp-");
    const dir = join(home, "ragd");
    // Another release's copy unused for eight days, which goes.
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, "lancedb-0.0.1-linux-x64-gnu-0123456789abcdef.node"), "old");
    utimesSync(join(dir, "lancedb-0.0.1-linux-x64-gnu-0123456789abcdef.node"), daysAgo(8), daysAgo(8));
    // And what a start that ended while writing left, two hours ago.
    writeFileSync(join(dir, ".4242-0b0e5c1a-8f6e-4a57-9d0c-5a0f3c2b1e11.tmp"), "half");
    utimesSync(
      join(dir, ".4242-0b0e5c1a-8f6e-4a57-9d0c-5a0f3c2b1e11.tmp"),
      new Date(Date.now() - 7_200_000),
      new Date(Date.now() - 7_200_000),
    );
    await startAndStop(home, tmp);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^lancedb-[\d.]+-[\w-]+-[0-9a-f]{16}\.node$/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const copy = statSync(join(dir, files[0]!));
    expect(copy.mode & 0o777).toBe(0o600);
    expect(copy.size).toBeGreaterThan(50_000_000);
    // Bun's own copy of an embedded library (`.bun-<uid>-<hash>.node`) is not made.
    expect(libraryCopies(tmp)).toEqual([]);

    await startAndStop(home, tmp);
    const again = statSync(join(dir, files[0]!));
    expect([again.ino, again.mtimeMs]).toEqual([copy.ino, copy.mtimeMs]);

    // Used again after more than a day: marked as used, not rewritten.
    utimesSync(join(dir, files[0]!), daysAgo(2), daysAgo(2));
    await startAndStop(home, tmp);
    const marked = statSync(join(dir, files[0]!));
    expect(marked.ino).toBe(copy.ino);
    expect(marked.mtimeMs).toBeGreaterThan(Date.now() - 600_000);

    // A copy cut short (a disk filled up, say) is written again.
    truncateSync(join(dir, files[0]!), 4096);
    await startAndStop(home, tmp);
    expect(readdirSync(dir)).toEqual(files);
    expect(statSync(join(dir, files[0]!)).size).toBe(copy.size);
  }, 240_000);

  test("another release's copy used this week stays: two releases on one machine keep theirs", async () => {
    const home = tempDir("ragd-cache-");
    const tmp = tempDir("ragd-tmp-");
    const dir = join(home, "ragd");
    mkdirSync(dir, { mode: 0o700 });
    const other = join(dir, "lancedb-0.0.2-linux-x64-gnu-fedcba9876543210.node");
    writeFileSync(other, "another release's copy");
    utimesSync(other, daysAgo(6), daysAgo(6));
    await startAndStop(home, tmp);
    expect(readdirSync(dir).sort()).toContain("lancedb-0.0.2-linux-x64-gnu-fedcba9876543210.node");
    expect(readdirSync(dir)).toHaveLength(2);
  }, 240_000);

  test("a cache directory others may write to is not used", async () => {
    const home = tempDir("ragd-cache-");
    const tmp = tempDir("ragd-tmp-");
    mkdirSync(join(home, "ragd"));
    chmodSync(join(home, "ragd"), 0o777);
    await startAndStop(home, tmp);
    expect(readdirSync(join(home, "ragd"))).toEqual([]);
    // The private temporary copy is gone once loaded.
    expect(libraryCopies(tmp)).toEqual([]);
  }, 120_000);
});
