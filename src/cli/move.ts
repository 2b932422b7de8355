/**
 * `ragd move --to-shared | --to-data-dir [--data-dir D]` (docs/operations.md, Moving a data directory):
 * moves an installation from its data directory to the places `serve` uses with
 * RAGD_DATABASE_URL and RAGD_STORAGE_URL (the same settings), or back. Whichever of the two
 * is set moves: the metadata row by row (db/copy.ts), the LanceDB tables and uploaded files
 * byte for byte (a table is a directory of files, so a copy is the same table at its new
 * place). The source is left as it was; the target must hold no ragd data yet.
 *
 * No server may use either side meanwhile: the data directory's lock and the database's
 * serving lock are held for the whole move, and refused (exit 2) when a server holds one.
 * Objects are copied first and the rows last, in one transaction: a move that fails
 * removes the objects it wrote, so it can simply be run again.
 */
import type { S3Client } from "bun";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { type Config, ConfigError, loadConfig, parseFlags } from "../config";
import { type ObjectStorage, objectStorage, requireServableStorage, storageKey } from "../config-storage";
import { redactPassword } from "../config-values";
import { openStore } from "../db/client";
import { type CopiedTable, copyRows, heldRows } from "../db/copy";
import { openPgStore } from "../db/pg-store";
import type { Store } from "../db/store";
import { bucketClient } from "../files/object-store";
import { abortUpload, completeUpload, createUpload, uploadPart } from "../files/s3-multipart";
import { holdDataDir } from "./data-dir-lock";

/** What moves besides the rows: the data directory's parts that a bucket holds instead. */
const AREAS = ["lance", "files"];
/** Files up to this size are one PUT; larger ones go in parts of this size (S3 takes 5 MiB and up). */
const PART_BYTES = 8 * 1024 * 1024;
/** Objects copied at once. */
const PARALLEL = 8;

/** One file or object to copy: its path under the data directory (or prefix), with "/" between names. */
interface Entry {
  path: string;
  size: number;
}

export async function moveCommand(argv: string[]): Promise<number> {
  const { toShared, config } = parseMove(argv);
  const bucket = objectStorage(config);
  if (config.databaseUrl === null && bucket === null)
    throw new ConfigError(
      "ragd move needs RAGD_DATABASE_URL (--database-url), RAGD_STORAGE_URL (--storage-url) or both: what to move to or from",
    );
  if (bucket) requireServableStorage(config);
  const dataDir = config.dataDir;
  // Unless the metadata is what arrives in it, the data directory holds it (or will, beside the bucket).
  const metadataArrives = !toShared && config.databaseUrl !== null;
  if (!metadataArrives && !existsSync(join(dataDir, "ragd.db")))
    throw new ConfigError(`no ragd data in ${dataDir} (it has no ragd.db); check --data-dir`);
  const release = holdDataDir(dataDir, "stop it first", (reason) =>
    console.error(`ragd: the data directory is not locked (${reason}); run no server on it now`),
  );
  const stores: Store[] = [];
  try {
    const metadata = config.databaseUrl ? await openDatabases(dataDir, config.databaseUrl, toShared, stores) : null;
    if (metadata) await refuseHeld(metadata.to, toShared ? redactPassword(config.databaseUrl!) : dataDir);
    const objects = bucket ? await planObjects({ s3: bucketClient(bucket), bucket, dataDir, toShared }) : null;
    const written: string[] = [];
    let rows: CopiedTable[] = [];
    try {
      if (objects) await copyAll(objects.entries, (e) => copyOne(e, objects.place), written);
      if (metadata) rows = await copyRows(metadata.from, metadata.to);
    } catch (err) {
      if (objects) await undo(written, objects.place);
      throw err;
    }
    report(config, toShared, rows, objects?.entries ?? null);
    return 0;
  } finally {
    for (const s of stores) await s.close();
    release();
  }
}

/** `--to-shared` or `--to-data-dir`, and the settings `serve` reads, from flags and environment. */
function parseMove(argv: string[]): { toShared: boolean; config: Config } {
  const switches = argv.filter((a) => a === "--to-shared" || a === "--to-data-dir");
  if (switches.length !== 1)
    throw new ConfigError(
      "ragd move needs one of --to-shared (from the data directory to the database and bucket) and --to-data-dir (back)",
    );
  const { config } = loadConfig(parseFlags(argv.filter((a) => a !== switches[0])));
  return { toShared: switches[0] === "--to-shared", config };
}

/** The data directory's store and the database's, as source and target; the database held against servers. */
async function openDatabases(dataDir: string, url: string, toShared: boolean, stores: Store[]) {
  const pg = await openPgStore(url);
  stores.push(pg);
  if (!(await pg.claimServing("alone")))
    throw new ConfigError(`the database ${redactPassword(url)} is in use by a ragd server; stop it first`);
  const local = openStore(dataDir);
  stores.push(local);
  return toShared ? { from: local, to: pg } : { from: pg, to: local };
}

async function refuseHeld(target: Store, shown: string): Promise<void> {
  const held = await heldRows(target.reader);
  if (held.users > 0 || held.collections > 0)
    throw new ConfigError(
      `${shown} already holds ragd data (${held.users} accounts, ${held.collections} pipelines and knowledge bases); move into an empty one`,
    );
}

interface Place {
  s3: S3Client;
  bucket: ObjectStorage;
  dataDir: string;
  toShared: boolean;
}

/** What to copy of the tables and files, once the target is known to hold none. */
async function planObjects(place: Place): Promise<{ place: Place; entries: Entry[] }> {
  const local = listLocal(place.dataDir);
  const remote = await listBucket(place.s3, place.bucket);
  const [entries, target] = place.toShared ? [local, remote] : [remote, local];
  if (target.length > 0)
    throw new ConfigError(
      `${place.toShared ? shownBucket(place.bucket) : place.dataDir} already holds LanceDB tables or uploaded files (${target[0]!.path}, …); move into an empty one`,
    );
  return { place, entries };
}

/** Every file under the data directory's lance/ and files/, but uploads in progress (files/.tmp). */
function listLocal(dataDir: string): Entry[] {
  const out: Entry[] = [];
  for (const area of AREAS) {
    const root = join(dataDir, area);
    if (!existsSync(root)) continue;
    for (const rel of readdirSync(root, { recursive: true }) as string[]) {
      const path = `${area}/${rel.split(sep).join("/")}`;
      if (path === "files/.tmp" || path.startsWith("files/.tmp/")) continue;
      const st = statSync(join(root, rel));
      if (st.isFile()) out.push({ path, size: st.size });
    }
  }
  return out;
}

/** Every object under the prefix's lance/ and files/, named as in the data directory. */
async function listBucket(s3: S3Client, bucket: ObjectStorage): Promise<Entry[]> {
  const start = storageKey(bucket, "").length;
  const out: Entry[] = [];
  for (const area of AREAS) {
    let continuationToken: string | undefined;
    do {
      const page = await s3.list({ prefix: storageKey(bucket, `${area}/`), continuationToken });
      for (const o of page.contents ?? []) out.push({ path: o.key.slice(start), size: o.size ?? 0 });
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
  }
  return out;
}

/** Runs `copy` on every entry, PARALLEL at a time; `written` gets what each wrote. The first failure ends it. */
async function copyAll(entries: Entry[], copy: (e: Entry) => Promise<string>, written: string[]): Promise<void> {
  const queue = [...entries];
  let failure: unknown = null;
  const worker = async () => {
    for (let e = queue.shift(); e && failure === null; e = queue.shift()) {
      try {
        written.push(await copy(e));
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (failure !== null) throw failure;
}

/** Copies one file to its object, or one object to its file; what it wrote (a key, or a path). */
async function copyOne(e: Entry, p: Place): Promise<string> {
  const key = storageKey(p.bucket, e.path);
  const file = join(p.dataDir, ...safeNames(e.path));
  if (p.toShared) {
    await upload(p, file, key, e.size);
    return key;
  }
  mkdirSync(dirname(file), { recursive: true });
  const fh = await open(file, "w", 0o600);
  try {
    for await (const chunk of p.s3.file(key).stream()) await fh.write(chunk);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return file;
}

/** A path's names, refusing any that would leave the data directory. */
function safeNames(path: string): string[] {
  const names = path.split("/");
  if (names.some((n) => n === "" || n === "." || n === ".."))
    throw new Error(`refusing to copy ${JSON.stringify(path)}: not a plain path`);
  return names;
}

/** A file to its object: one PUT, or a multipart upload read part by part, aborted on failure. */
async function upload(p: Place, file: string, key: string, size: number): Promise<void> {
  const source = Bun.file(file);
  if (size <= PART_BYTES) {
    await p.s3.write(key, await source.bytes());
    return;
  }
  const id = await createUpload(p.bucket, key);
  try {
    const etags: string[] = [];
    for (let at = 0; at < size; at += PART_BYTES) {
      const part = await source.slice(at, Math.min(size, at + PART_BYTES)).bytes();
      etags.push(await uploadPart(p.bucket, key, id, etags.length + 1, part));
    }
    await completeUpload(p.bucket, key, id, etags);
  } catch (err) {
    await abortUpload(p.bucket, key, id).catch(() => {});
    throw err;
  }
}

/** Removes what a failed move wrote, so that running it again finds an empty target. */
async function undo(written: string[], p: Place): Promise<void> {
  for (const w of written) {
    if (p.toShared) await p.s3.delete(w).catch(() => {});
    else rmSync(w, { force: true });
  }
}

function shownBucket(b: ObjectStorage): string {
  return `s3://${b.bucket}${b.prefix ? `/${b.prefix}` : ""}`;
}

/** What moved: rows per table, vector tables, uploaded files, bytes. */
function report(config: Config, toShared: boolean, rows: CopiedTable[], objects: Entry[] | null): void {
  const shared = [
    config.databaseUrl && redactPassword(config.databaseUrl),
    config.storage && shownBucket(objectStorage(config)!),
  ].filter(Boolean);
  const [from, to] = toShared ? [config.dataDir, shared.join(" and ")] : [shared.join(" and "), config.dataDir];
  console.log(`moved ${from} to ${to}, leaving the source as it was`);
  for (const t of rows) console.log(`  ${t.name.padEnd(20)} ${t.rows} rows`);
  if (!objects) return;
  const tables = new Set(objects.filter((o) => o.path.startsWith("lance/")).map((o) => o.path.split("/")[1]));
  const files = objects.filter((o) => o.path.startsWith("files/")).length;
  const bytes = objects.reduce((n, o) => n + o.size, 0);
  console.log(
    `  vector tables: ${tables.size}, uploaded files: ${files}; ${objects.length} files, ${bytes} bytes in all`,
  );
}
