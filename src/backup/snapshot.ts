/**
 * A consistent snapshot of a data directory, taken beside a running server
 * (docs/API.md, Backup and restore). While LanceDB's writers are paused it records
 * each table's version, then in one synchronous step (nothing else runs on this
 * thread meanwhile) copies SQLite through `VACUUM INTO` on a connection of its own
 * and hard-links the files of those table versions, the stored files and the secret
 * key into a staging directory. LanceDB and ragd never change a finished file in
 * place, so a link is a copy that later writes, compactions and deletes leave alone.
 * The snapshot is what a kill -9 at that instant would have left.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

/** Where snapshots are staged, inside the data directory (so links stay on one file system). */
export const STAGING = ".backup-tmp";

export interface Snapshot {
  dir: string;
  takenAt: string;
  /** Each LanceDB table's version in the snapshot. */
  tables: Record<string, number>;
  /** The SQLite migrations the snapshot's database has. */
  migrations: string[];
  /** Removes the staging directory. */
  discard(): void;
}

/** What a snapshot needs of the vector store: a pause of its writers and its tables' versions. */
export interface Freezable {
  frozen<T>(fn: () => Promise<T>): Promise<T>;
  tableVersions(): Promise<Record<string, number>>;
}

/**
 * Takes a snapshot of `dataDir` into a new staging directory inside it. `whileFrozen`
 * runs after the copy, before writes resume: what it reads is the snapshot's state
 * (tests compare queries there with the restored server's).
 */
export async function takeSnapshot(
  dataDir: string,
  store: Freezable,
  whileFrozen?: () => Promise<void>,
): Promise<Snapshot> {
  const dir = join(dataDir, STAGING, `snap-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  const discard = () => rmSync(dir, { recursive: true, force: true });
  try {
    return await store.frozen(async () => {
      const tables = await store.tableVersions();
      // From here on, synchronous: SQLite, the tables' files and the stored files at one instant.
      const takenAt = new Date().toISOString();
      vacuumInto(join(dataDir, "ragd.db"), join(dir, "ragd.db"));
      for (const [name, version] of Object.entries(tables)) linkTable(dataDir, dir, name, version);
      linkTree(join(dataDir, "files"), join(dir, "files"), (rel) => !rel.startsWith(".tmp"));
      if (existsSync(join(dataDir, "secret.key"))) copyFileSync(join(dataDir, "secret.key"), join(dir, "secret.key"));
      await whileFrozen?.();
      return { dir, takenAt, tables, migrations: migrationsOf(join(dir, "ragd.db")), discard };
    });
  } catch (err) {
    discard();
    throw err;
  }
}

/** SQLite's own consistent copy, from a read-only connection of its own (WAL lets it read beside writers). */
function vacuumInto(from: string, to: string): void {
  const db = new Database(from, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(to);
  } finally {
    db.close();
  }
}

function migrationsOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT tag FROM _migrations ORDER BY tag").all() as { tag: string }[]).map((r) => r.tag);
  } finally {
    db.close();
  }
}

const U64_MAX = 18446744073709551615n;

/** The version a manifest file names: `<n>.manifest`, or u64::MAX − n in LanceDB's newer naming. */
export function manifestVersion(file: string): number | null {
  const m = /^(\d+)\.manifest$/.exec(file);
  if (!m) return null;
  const n = BigInt(m[1]!);
  return Number(n > 1n << 63n ? U64_MAX - n : n);
}

/**
 * Links one table's files as of `version`: manifests of later versions are left out
 * (so the copy opens at `version`), as are the version hint and files still being
 * written (the object store stages them under a name with '#').
 */
function linkTable(dataDir: string, into: string, name: string, version: number): void {
  const rel = join("lance", `${name}.lance`);
  const used = dataFilesOf(join(dataDir, rel), version);
  linkTree(join(dataDir, rel), join(into, rel), (p) => {
    const file = p.slice(p.lastIndexOf("/") + 1);
    if (file.includes("#") || file === "latest_version_hint.json") return false;
    if (p.startsWith("data/")) return used === null || used.has(file);
    if (!p.startsWith("_versions/")) return true;
    const v = manifestVersion(file);
    return v !== null && v <= version;
  });
}

/**
 * The data files the manifest of `version` names (its protobuf holds each data file's
 * name as a plain string), so that files of older versions, kept a while after a
 * compaction, stay out of the archive. Null (keep every data file) when the manifest
 * cannot be read or names none of them.
 */
function dataFilesOf(tableDir: string, version: number): Set<string> | null {
  try {
    const manifests = readdirSync(join(tableDir, "_versions")).filter((f) => manifestVersion(f) === version);
    if (manifests.length !== 1) return null;
    const text = readFileSync(join(tableDir, "_versions", manifests[0]!)).toString("latin1");
    const used = new Set(readdirSync(join(tableDir, "data")).filter((f) => text.includes(f)));
    return used.size ? used : null;
  } catch {
    return null;
  }
}

/** Hard-links (or, across file systems, copies) every file under `from` that `keep` accepts. */
function linkTree(from: string, to: string, keep: (rel: string) => boolean): void {
  if (!existsSync(from)) return;
  const walk = (rel: string) => {
    for (const e of readdirSync(join(from, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!keep(r)) continue;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) linkOrCopy(join(from, r), join(to, r));
    }
  };
  walk("");
}

function linkOrCopy(src: string, dst: string): void {
  mkdirSync(dirname(dst), { recursive: true });
  try {
    linkSync(src, dst);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // removed just now: not in the snapshot
    copyFileSync(src, dst);
  }
}

/** Removes snapshots left by a backup that was interrupted (a kill, a crash). */
export function sweepSnapshots(dataDir: string): void {
  rmSync(join(dataDir, STAGING), { recursive: true, force: true });
}
