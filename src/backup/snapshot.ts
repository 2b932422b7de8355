/**
 * A consistent snapshot of a data directory, taken beside a running server
 * (docs/API.md, Backup and restore). While LanceDB's writers are paused it records
 * each table's version, links those versions' files, copies SQLite through `VACUUM INTO` on a connection and thread of its own, and
 * hard-links the files of those table versions, the stored files and the secret key
 * into a staging directory. LanceDB and ragd never change a finished file in
 * place, so a link is a copy that later writes, compactions and deletes leave alone.
 * The snapshot is what a kill -9 at the instant of the SQLite copy would have left:
 * while the tables stand still, any state of SQLite agrees with them as it does at
 * any moment of the server's life.
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

/** Holds the removal of stored files while the snapshot links them; the returned function lets them go. */
export interface RemovalHold {
  holdRemovals(): () => void;
}

/** For a directory no server runs on: nothing removes files, nothing to hold. */
export const NO_REMOVALS: RemovalHold = { holdRemovals: () => () => {} };

/**
 * Takes a snapshot of `dataDir` into a new staging directory inside it. `whileFrozen`
 * runs after the copy, before writes resume: what it reads is the snapshot's state
 * (tests compare queries there with the restored server's).
 */
export async function takeSnapshot(
  dataDir: string,
  vectorStore: Freezable,
  files: RemovalHold,
  whileFrozen?: () => Promise<void>,
): Promise<Snapshot> {
  const dir = join(dataDir, STAGING, `snap-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  const discard = () => rmSync(dir, { recursive: true, force: true });
  try {
    return await vectorStore.frozen(async () => {
      const tables = await vectorStore.tableVersions();
      for (const [name, version] of Object.entries(tables)) linkTable(dataDir, dir, name, version);
      // SQLite is read at one instant while the tables stand still. Stored files are linked
      // after it, with their removal held meanwhile: each file a row names was stored before
      // the row, and is still there.
      const releaseFiles = files.holdRemovals();
      let takenAt: string;
      try {
        takenAt = new Date().toISOString();
        await vacuumInto(join(dataDir, "ragd.db"), join(dir, "ragd.db"));
        linkTree(join(dataDir, "files"), join(dir, "files"), (rel) => !rel.startsWith(".tmp"));
      } finally {
        releaseFiles();
      }
      if (existsSync(join(dataDir, "secret.key"))) copyFileSync(join(dataDir, "secret.key"), join(dir, "secret.key"));
      await whileFrozen?.();
      return { dir, takenAt, tables, migrations: migrationsOf(join(dir, "ragd.db")), discard };
    });
  } catch (err) {
    discard();
    throw err;
  }
}

/** Where the copying thread's code is: beside this file, or inside the compiled binary by its path under src/. */
function vacuumWorker(): string {
  return import.meta.url.includes("$bunfs")
    ? "./backup/vacuum-worker.ts"
    : new URL("./vacuum-worker.ts", import.meta.url).href;
}

/** SQLite's own consistent copy (`VACUUM INTO`), made on a worker thread (vacuum-worker.ts). */
function vacuumInto(from: string, to: string): Promise<void> {
  const worker = new Worker(vacuumWorker(), { smol: true });
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<{ ok: boolean; error?: string }>) =>
      e.data.ok ? resolve() : reject(new Error(`copying the database failed: ${e.data.error}`));
    worker.onerror = (e) => reject(new Error(`copying the database failed: ${e.message}`));
    worker.postMessage({ from, to });
  }).finally(() => worker.terminate());
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
 * written (the object store stages them under a name with '#'), and the data files and
 * index directories only older versions use.
 */
function linkTable(dataDir: string, into: string, name: string, version: number): void {
  const rel = join("lance", `${name}.lance`);
  const used = usedBy(join(dataDir, rel), version);
  linkTree(join(dataDir, rel), join(into, rel), (p) => {
    const file = p.slice(p.lastIndexOf("/") + 1);
    if (file.includes("#") || file === "latest_version_hint.json") return false;
    if (p.startsWith("data/")) return used.data === null || used.data.has(file);
    if (p.startsWith("_indices/")) return used.indices === null || used.indices.has(p.split("/")[1]!);
    if (!p.startsWith("_versions/")) return true;
    const v = manifestVersion(file);
    return v !== null && v <= version;
  });
}

/**
 * The data files and index directories the manifest of `version` names, so that those
 * of older versions, kept a while after a compaction or an index catch-up, stay out of
 * the archive. The manifest's protobuf holds each data file's name as a plain string and
 * each index's UUID as its 16 bytes. A null set (keep them all) when the manifest cannot
 * be read or names none of them.
 */
function usedBy(tableDir: string, version: number): { data: Set<string> | null; indices: Set<string> | null } {
  let manifest: Buffer;
  try {
    const manifests = readdirSync(join(tableDir, "_versions")).filter((f) => manifestVersion(f) === version);
    if (manifests.length !== 1) return { data: null, indices: null };
    manifest = readFileSync(join(tableDir, "_versions", manifests[0]!));
  } catch {
    return { data: null, indices: null };
  }
  const text = manifest.toString("latin1");
  const named = (dir: string, isNamed: (entry: string) => boolean) => {
    const entries = existsSync(join(tableDir, dir)) ? readdirSync(join(tableDir, dir)) : [];
    const used = new Set(entries.filter(isNamed));
    return used.size ? used : null;
  };
  return {
    data: named("data", (f) => text.includes(f)),
    indices: named("_indices", (d) => {
      const bytes = Buffer.from(d.replaceAll("-", ""), "hex");
      return bytes.length === 16 && manifest.includes(bytes);
    }),
  };
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
