/**
 * ragd's archives (backups and pipeline exports): a tar whose first entry is
 * manifest.json, listing every other entry with its size and SHA-256. A reader
 * checks the whole archive against the manifest before it writes anything; a
 * writer writes to a temporary name and renames only once the archive is complete.
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { END, fileHeader, padding, TarError, tarEntries } from "./tar";

export interface ManifestEntry {
  path: string;
  size: number;
  sha256: string;
}

/** What every manifest holds; backups and exports add their own fields. */
export interface Manifest {
  format: string;
  formatVersion: number;
  ragdVersion: string;
  createdAt: string;
  entries: ManifestEntry[];
}

/**
 * Lets timers and I/O callbacks (searches answering, requests arriving) run. A file
 * stream read in a loop resolves from its buffer on microtasks alone, so hashing or
 * copying hundreds of MB would otherwise hold the event loop for seconds.
 */
const yieldEvery = 4 * 1024 * 1024;
const breathe = () => new Promise<void>((r) => setImmediate(r));

/** An archive that cannot be used, with a sentence a person can act on. */
export class ArchiveError extends Error {}

const MANIFEST = "manifest.json";

/** Every regular file under `dir`, as sorted paths relative to it with '/' separators. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

async function hashFile(path: string): Promise<ManifestEntry & { path: string }> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const part of Bun.file(path).stream()) {
    hasher.update(part);
    if (Math.floor((size + part.length) / yieldEvery) > Math.floor(size / yieldEvery)) await breathe();
    size += part.length;
  }
  return { path, size, sha256: hasher.digest("hex") };
}

/** The manifest of the files under `dir`, with the given head fields. */
export async function manifestOf<M extends Manifest>(dir: string, head: Omit<M, "entries">): Promise<M> {
  const entries: ManifestEntry[] = [];
  for (const rel of filesUnder(dir)) entries.push({ ...(await hashFile(join(dir, rel))), path: rel });
  return { ...head, entries } as M;
}

/** The archive's bytes: manifest.json, then each entry of the manifest from `dir`. */
export async function* archiveBytes(dir: string, manifest: Manifest): AsyncGenerator<Uint8Array> {
  const now = Date.now() / 1000;
  const head = new TextEncoder().encode(JSON.stringify(manifest, null, 1));
  yield fileHeader(MANIFEST, head.length, now);
  yield head;
  yield padding(head.length);
  for (const e of manifest.entries) {
    yield fileHeader(e.path, e.size, now, e.path === "secret.key" ? 0o600 : 0o644);
    let sent = 0;
    for await (const part of Bun.file(join(dir, e.path)).stream()) {
      if (Math.floor((sent + part.length) / yieldEvery) > Math.floor(sent / yieldEvery)) await breathe();
      sent += part.length;
      yield part;
    }
    // The snapshot's files never change; if one did, the archive must not pass as whole.
    if (sent !== e.size) throw new Error(`${e.path} changed while it was archived`);
    yield padding(e.size);
  }
  yield END;
}

/**
 * Writes `bytes` to `target` through `<target>.partial-<random>`, synced, then renamed:
 * a failure or a kill part-way never leaves a file under the final name. `check` may
 * refuse the written file before it is renamed.
 */
export async function writeAtomically(
  target: string,
  bytes: AsyncIterable<Uint8Array>,
  check?: (written: string) => Promise<void>,
): Promise<number> {
  const tmp = join(dirname(target), `.${basename(target)}.partial-${crypto.randomUUID().slice(0, 8)}`);
  const fh = await open(tmp, "wx", 0o600);
  let size = 0;
  try {
    for await (const part of bytes) {
      await fh.write(part);
      size += part.length;
    }
    await fh.sync();
    await fh.close();
    await check?.(tmp);
    renameSync(tmp, target);
    syncDir(dirname(target));
    return size;
  } catch (err) {
    await fh.close().catch(() => {});
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Makes a rename in `dir` durable. */
export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    fsyncSync(fd);
    closeSync(fd);
  } catch {
    // not every file system lets a directory be synced
  }
}

/** A relative path that stays inside the directory it is extracted to. */
function safePath(p: string): boolean {
  return (
    p.length > 0 && !p.startsWith("/") && !p.includes("\\") && p.split("/").every((s) => s && s !== "." && s !== "..")
  );
}

/**
 * Reads a whole archive and checks it: manifest first (handed to `check`, which
 * throws ArchiveError for one it cannot use), every entry listed once with its size
 * and SHA-256, nothing missing, nothing extra, the tar's end present. With `into`,
 * also writes the entries under that directory (the caller removes it on failure).
 */
export async function readArchive<M extends Manifest>(file: string, check: (m: M) => void, into?: string): Promise<M> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new ArchiveError(`cannot read ${file}`);
  }
  if (size === 0) throw new ArchiveError(`${file} is empty`);
  try {
    return await readEntries(file, check, into);
  } catch (err) {
    if (err instanceof TarError) throw new ArchiveError(`${file}: ${err.message}`);
    throw err;
  }
}

async function readEntries<M extends Manifest>(file: string, check: (m: M) => void, into?: string): Promise<M> {
  let manifest: M | null = null;
  const expected = new Map<string, ManifestEntry>();
  for await (const entry of tarEntries(Bun.file(file).stream())) {
    if (!manifest) {
      if (entry.path !== MANIFEST || entry.size > 64 * 1024 * 1024)
        throw new ArchiveError(`${file} is not a ragd archive (it does not start with ${MANIFEST})`);
      manifest = parseManifest<M>(await collect(entry.body()), file);
      check(manifest);
      for (const e of manifest.entries) expected.set(e.path, e);
      continue;
    }
    const want = expected.get(entry.path);
    if (!want) throw new ArchiveError(`${file} is damaged: ${entry.path} is not in its manifest`);
    expected.delete(entry.path);
    await readEntry(entry, want, file, into);
  }
  if (!manifest) throw new ArchiveError(`${file} is not a ragd archive (it has no manifest)`);
  if (expected.size) throw new ArchiveError(`${file} is incomplete: ${[...expected.keys()][0]} is missing`);
  return manifest;
}

async function readEntry(
  entry: { path: string; size: number; body: () => AsyncGenerator<Uint8Array> },
  want: ManifestEntry,
  file: string,
  into?: string,
): Promise<void> {
  const hasher = new Bun.CryptoHasher("sha256");
  const out = into ? await openTarget(into, entry.path) : null;
  let seen = 0;
  try {
    for await (const part of entry.body()) {
      hasher.update(part);
      await out?.write(part);
      if (Math.floor((seen + part.length) / yieldEvery) > Math.floor(seen / yieldEvery)) await breathe();
      seen += part.length;
    }
    await out?.sync();
  } finally {
    await out?.close();
  }
  if (entry.size !== want.size || hasher.digest("hex") !== want.sha256)
    throw new ArchiveError(`${file} is damaged: ${entry.path} does not match its checksum`);
}

async function openTarget(root: string, path: string) {
  const { mkdir } = await import("node:fs/promises");
  const target = join(root, path);
  await mkdir(dirname(target), { recursive: true });
  return open(target, "wx", path === "secret.key" ? 0o600 : 0o644);
}

function parseManifest<M extends Manifest>(bytes: Uint8Array, file: string): M {
  let m: M;
  try {
    m = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ArchiveError(`${file} is damaged: its manifest is not JSON`);
  }
  if (!m || typeof m !== "object" || !Array.isArray(m.entries))
    throw new ArchiveError(`${file} is not a ragd archive (its manifest has no entries)`);
  for (const e of m.entries) {
    if (!e || typeof e.path !== "string" || !safePath(e.path) || e.path === MANIFEST)
      throw new ArchiveError(`${file} is damaged: its manifest names an unsafe path`);
  }
  return m;
}

async function collect(parts: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const p of parts) chunks.push(p.slice());
  return Buffer.concat(chunks);
}

/** A pull-driven response body of an archive; a client that hangs up ends it, and `discard` runs either way. */
export function archiveStream(gen: AsyncGenerator<Uint8Array>, discard: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const next = await gen.next();
        if (next.done) c.close();
        else c.enqueue(next.value);
      } catch (err) {
        discard();
        c.error(err);
      }
    },
    async cancel() {
      await gen.return(undefined);
      discard();
    },
  });
}
