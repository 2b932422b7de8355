/**
 * The data directory holds password hashes, webhook secrets and credentials in source
 * URLs, so only the user ragd runs as may read it (docs/security.md): what ragd creates
 * is private from the start, and what an older ragd or a looser umask left is tightened
 * when the server starts.
 */
import { chmodSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** From here on this process creates files 0600 and directories 0700, whatever the umask it was given. */
export function createPrivately(): void {
  process.umask(0o077);
}

/**
 * Takes group and other access away from `dataDir` (to 0700) and from the regular files
 * directly in it (ragd.db and its -wal and -shm, secret.key…, to 0600) where they have
 * any. Only the directory ragd owns is touched: never its parent, its subdirectories
 * (private behind it) or what a symbolic link in it points to. Says what it tightened
 * ("." for the directory, files by name) and what it could not (owned by another user).
 */
export function tightenDataDir(dataDir: string): { tightened: string[]; refused: string[] } {
  const out = { tightened: [] as string[], refused: [] as string[] };
  const tighten = (path: string, name: string, mode: number) => {
    try {
      chmodSync(path, mode);
      out.tightened.push(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
      out.refused.push(name);
    }
  };
  // The directory as configured, through a link if it is one; its entries never through one.
  if (statSync(dataDir).mode & 0o077) tighten(dataDir, ".", 0o700);
  for (const name of readdirSync(dataDir).sort()) {
    const st = lstatSync(join(dataDir, name), { throwIfNoEntry: false });
    if (st?.isFile() && st.mode & 0o077) tighten(join(dataDir, name), name, 0o600);
  }
  return out;
}
