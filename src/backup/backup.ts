/**
 * Backups of a whole data directory and their restore (docs/API.md, Backup and
 * restore). A backup is an archive (archive.ts) of a snapshot (snapshot.ts):
 * ragd.db, lance/, files/ and secret.key, with a manifest naming the ragd version,
 * the SQLite migrations and each LanceDB table's version.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { migrations as knownMigrations } from "../db/migrations/index";
import { version } from "../version";
import {
  ArchiveError,
  archiveBytes,
  type Manifest,
  manifestOf,
  readArchive,
  syncDir,
  writeAtomically,
} from "./archive";
import { type Freezable, type RemovalHold, takeSnapshot } from "./snapshot";

export const BACKUP_FORMAT = "ragd-backup";
export const BACKUP_FORMAT_VERSION = 1;

export interface BackupManifest extends Manifest {
  takenAt: string;
  /** The SQLite migrations applied in the backed-up database, by tag. */
  migrations: string[];
  /** Each LanceDB table's version in the backup. */
  tables: Record<string, number>;
}

/** A backup ready to be sent: its manifest and bytes; `discard` removes its snapshot (after sending or on failure). */
export interface PreparedBackup {
  manifest: BackupManifest;
  bytes: AsyncGenerator<Uint8Array>;
  discard(): void;
}

/** Snapshots `dataDir` and prepares its archive; the snapshot goes once the bytes are read to the end. */
export async function prepareBackup(
  dataDir: string,
  store: Freezable,
  files: RemovalHold,
  whileFrozen?: () => Promise<void>,
): Promise<PreparedBackup> {
  const snap = await takeSnapshot(dataDir, store, files, whileFrozen);
  try {
    const manifest = await manifestOf<BackupManifest>(snap.dir, {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      ragdVersion: version,
      createdAt: new Date().toISOString(),
      takenAt: snap.takenAt,
      migrations: snap.migrations,
      tables: snap.tables,
    });
    async function* bytes() {
      try {
        yield* archiveBytes(snap.dir, manifest);
      } finally {
        snap.discard();
      }
    }
    return { manifest, bytes: bytes(), discard: snap.discard };
  } catch (err) {
    snap.discard();
    throw err;
  }
}

/** Writes a backup of `dataDir` to `target` (temporary name, then rename). */
export async function backupToFile(
  dataDir: string,
  store: Freezable,
  files: RemovalHold,
  target: string,
): Promise<{ size: number; manifest: BackupManifest }> {
  const b = await prepareBackup(dataDir, store, files);
  try {
    return { size: await writeAtomically(target, b.bytes), manifest: b.manifest };
  } finally {
    b.discard();
  }
}

/** Refuses a manifest this ragd cannot restore: another format, or one from a newer ragd. */
export function checkBackupManifest(m: BackupManifest): void {
  if (m.format !== BACKUP_FORMAT)
    throw new ArchiveError(`this is not a ragd backup (its format is ${JSON.stringify(m.format)})`);
  const known = new Set(knownMigrations.map((x) => x.tag));
  const unknown = Array.isArray(m.migrations) ? m.migrations.filter((t) => !known.has(t)) : ["?"];
  if (m.formatVersion > BACKUP_FORMAT_VERSION || unknown.length)
    throw new ArchiveError(
      `this backup was made by a newer ragd (${m.ragdVersion}) than this one (${version}); restore it with that version or later`,
    );
}

/**
 * Restores a backup into `dataDir`, which must be empty or absent. The archive is
 * read and checked in full first; then written to a sibling directory and renamed
 * into place, so an interrupted restore leaves `dataDir` as it was.
 */
export async function restoreBackup(file: string, dataDir: string): Promise<BackupManifest> {
  const target = resolve(dataDir);
  if (existsSync(target) && readdirSync(target).length > 0)
    throw new ArchiveError(`${target} is not empty; restore into a new or empty directory`);
  await readArchive<BackupManifest>(file, checkBackupManifest);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.restoring-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(tmp, { mode: 0o700 });
  try {
    const manifest = await readArchive<BackupManifest>(file, checkBackupManifest, tmp);
    if (existsSync(target)) rmdirSync(target); // still empty: checked above, and rmdir refuses otherwise
    renameSync(tmp, target);
    syncDir(dirname(target));
    return manifest;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
