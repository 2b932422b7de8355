/**
 * The data directory's lock for a command that must have the directory alone (`serve`,
 * `move`; docs/operations.md): taken before anything in it is touched and held until the
 * process ends or the release is called, and refused, naming the holder, while another
 * process holds it. `ragd user …` takes none; `ragd backup` asks the holder instead.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config";
import { lockFile } from "../tools/lockfile";

/**
 * Takes the lock of `dataDir` (creating the directory), or throws a ConfigError that ends
 * with `fix`; `unlocked` is told why when this system has no file locks. Returns the release.
 */
export function holdDataDir(dataDir: string, fix: string, unlocked: (reason: string) => void): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lock = lockFile(join(dataDir, "ragd.lock"));
  if (lock.locked === false) {
    const who = lock.holder ? `ragd process ${lock.holder}` : "another ragd process";
    throw new ConfigError(`the data directory ${dataDir} is in use by ${who}; ${fix}`);
  }
  if (lock.locked === null) {
    unlocked(lock.reason);
    return () => {};
  }
  return () => lock.release();
}
