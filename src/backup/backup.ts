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
  vectorStore: Freezable,
  files: RemovalHold,
  whileFrozen?: () => Promise<void>,
): Promise<PreparedBackup> {
  const snap = await takeSnapshot(dataDir, vectorStore, files, whileFrozen);
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
  vectorStore: Freezable,
  files: RemovalHold,
  target: string,
): Promise<{ size: number; manifest: BackupManifest }> {
  const b = await prepareBackup(dataDir, vectorStore, files);
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
  if (!Array.isArray(m.migrations)) throw new ArchiveError("the backup's manifest does not list its migrations");
  const why = beyondThisRagd(m);
  if (why) throw new ArchiveError(`this backup needs a newer ragd: ${why}; restore it with ${maker(m)}`);
}

/** What in the manifest this ragd does not know: a newer archive format, or database migrations; null if nothing. */
function beyondThisRagd(m: BackupManifest): string | null {
  if (!(m.formatVersion <= BACKUP_FORMAT_VERSION))
    return `its archive format is version ${shown(m.formatVersion, 20)}, and this ragd reads up to version ${BACKUP_FORMAT_VERSION}`;
  const known = new Set(knownMigrations.map((x) => x.tag));
  const unknown = m.migrations.filter((t) => !known.has(t)).map((t) => shown(t, 80));
  if (unknown.length === 0) return null;
  const list = unknown.length > 3 ? `${unknown.slice(0, 3).join(", ")}, …` : unknown.join(", ");
  return `its database has ${unknown.length === 1 ? "a migration" : `${unknown.length} migrations`} this ragd does not know (${list})`;
}

/** A value from the archive, printable and short, for a message. */
const shown = (value: unknown, max: number) =>
  String(value)
    .replace(/[^\x20-\x7e]/g, "?")
    .slice(0, max);

/**
 * The ragd to restore with. The versions are named only when the backup's is a later
 * release than this one: builds of one version can differ in migrations, and "made by a
 * newer ragd (0.1.0) than this one (0.1.0)" helps nobody.
 */
function maker(m: BackupManifest): string {
  const theirs = String(m.ragdVersion);
  const later = /^\d+\.\d+\.\d+(?:[-+][\w.+-]{1,40})?$/.test(theirs) && Bun.semver.order(theirs, version) > 0;
  return later
    ? `ragd ${theirs} or later (this is ragd ${version})`
    : `the build of ragd that made it (this is ragd ${version})`;
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
