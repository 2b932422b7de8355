/**
 * `ragd backup --to FILE [--data-dir D]` and `ragd restore --from FILE --data-dir D`
 * (docs/API.md, Backup and restore). With a server running on D, the backup is asked
 * of it over loopback HTTP with the token of its control file (it alone may pause its
 * writers); with none, this process locks D and takes the backup itself.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ArchiveError, readArchive, writeAtomically } from "../backup/archive";
import { backupToFile, checkBackupManifest, restoreBackup, type BackupManifest } from "../backup/backup";
import { type Freezable, NO_REMOVALS } from "../backup/snapshot";
import { ConfigError } from "../config";
import { CONTROL_HEADER, readControlFile } from "../features/backup/control";
import { lockFile } from "../tools/lockfile";
import { openLance } from "../vectors/connection";

export async function backupCommand(dataDir: string, flags: Record<string, string>): Promise<number> {
  const to = flags.to;
  if (!to) throw new ConfigError("--to FILE is required");
  const target = resolve(to);
  if (existsSync(target)) throw new ConfigError(`${target} already exists; give --to a new file name`);
  if (!existsSync(join(dataDir, "ragd.db"))) throw new ConfigError(`no ragd data in ${dataDir}; check --data-dir`);
  const started = Date.now();
  const lock = lockFile(join(dataDir, "ragd.lock"));
  let manifest: BackupManifest;
  let size: number;
  if (lock.locked === false) ({ manifest, size } = await askServer(dataDir, target));
  else {
    try {
      ({ manifest, size } = await backupToFile(dataDir, await offlineStore(dataDir), NO_REMOVALS, target));
    } finally {
      if (lock.locked) lock.release();
    }
  }
  const tables = Object.keys(manifest.tables).length;
  console.log(
    `backup written to ${target}: ${size} bytes, ${manifest.entries.length} files, ${tables} vector tables, ${Date.now() - started} ms`,
  );
  return 0;
}

/** Streams the running server's backup to a temporary file, checks it in full, then renames it. */
async function askServer(dataDir: string, target: string): Promise<{ manifest: BackupManifest; size: number }> {
  const control = readControlFile(dataDir);
  if (!control)
    throw new ConfigError(`a ragd server runs on ${dataDir} but has not published its address yet; try again`);
  const res = await fetch(`${control.url}/api/admin/backup`, {
    method: "POST",
    headers: { [CONTROL_HEADER]: control.token },
  }).catch((err) => {
    throw new Error(`cannot reach the ragd server at ${control.url}: ${err instanceof Error ? err.message : err}`);
  });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(`the server refused the backup (${res.status}): ${body?.error?.message ?? res.statusText}`);
  }
  let manifest: BackupManifest | undefined;
  // A stream cut short by the server must never get the final name: the file is checked in full first.
  const size = await writeAtomically(target, res.body as unknown as AsyncIterable<Uint8Array>, async (written) => {
    manifest = await readArchive<BackupManifest>(written, checkBackupManifest);
  });
  return { manifest: manifest!, size };
}

/** The store of a data directory no server runs on: nothing writes, so nothing needs pausing. */
async function offlineStore(dataDir: string): Promise<Freezable> {
  return {
    frozen: (fn) => fn(),
    async tableVersions() {
      const conn = await openLance(dataDir);
      try {
        const out: Record<string, number> = {};
        for (const name of await conn.tableNames({ limit: 1_000_000 })) {
          const t = await conn.openTable(name);
          out[name] = await t.version();
          t.close();
        }
        return out;
      } finally {
        conn.close();
      }
    },
  };
}

export async function restoreCommand(dataDir: string, flags: Record<string, string>): Promise<number> {
  const from = flags.from;
  if (!from) throw new ConfigError("--from FILE is required");
  const started = Date.now();
  try {
    const m = await restoreBackup(resolve(from), dataDir);
    console.log(
      `restored ${m.entries.length} files (backup of ${m.takenAt}, ragd ${m.ragdVersion}) into ${dataDir} in ${Date.now() - started} ms`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ArchiveError) {
      console.error(`ragd: restore refused: ${err.message}; nothing was written`);
      return 1;
    }
    throw err;
  }
}
