/**
 * LanceDB's native library in the compiled executable. The executable embeds it compressed
 * (zstd, about a quarter of its 155 MB; scripts/compile.ts); the operating system can only
 * load a file, so the first start writes it out, uncompressed, into a private cache
 * directory, named by its content hash, and every later start loads that copy without
 * decompressing or reading it.
 *
 * The cache is `$XDG_CACHE_HOME/ragd`, or `~/.cache/ragd`: a directory only this user may
 * write to (created 0700; refused when it, or the directory it is in, is another user's
 * or writable by others, or is a symbolic link). A copy found there is used when it is a
 * regular file of this user, not writable by others, of the expected size: anyone who
 * could have changed its bytes could already write as this user. A copy is written once,
 * after its SHA-256 was checked, into a temporary name beside it, flushed, then renamed, so
 * that a start never sees half a file and two first starts at once do not collide. Each
 * start marks its copy as used (its modification time, at most once a day) and removes
 * other releases' copies unused for a week, and what an interrupted start left: two
 * releases run by one user each keep their copy instead of writing it again at every start.
 * Without a usable cache directory, each start writes the library into a new private
 * temporary directory (mkdtemp, 0700) and removes it once loaded.
 */
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import * as zlib from "node:zlib";

// node:zlib's zstd (in Bun, and Node from 22.15) is newer than the installed type definitions.
// It decompresses this library in about half the CPU time of Bun.zstdDecompressSync here.
const zstd = zlib as unknown as {
  zstdDecompressSync(bytes: Uint8Array, options: { params: Record<number, number> }): Buffer;
  constants: { ZSTD_d_windowLogMax: number };
};

export interface EmbeddedLibrary {
  /** The embedded zstd file's path inside the executable. */
  compressed: string;
  /** SHA-256 (hex) and size of the library itself. */
  sha256: string;
  size: number;
  /** Its file name in the cache, without the hash: `lancedb-<version>-<platform>`. */
  name: string;
}

/** The library's exports (what `require` of its `.node` would answer). */
export function loadEmbeddedLibrary(lib: EmbeddedLibrary): unknown {
  const dir = privateCacheDir();
  if (dir) {
    const path = join(dir, `${lib.name}-${lib.sha256.slice(0, 16)}.node`);
    const copy = usableCopy(path, lib.size);
    if (!copy) writeCopy(path, lib);
    else if (copy.mtimeMs < Date.now() - DAY_MS) markUsed(path);
    removeUnusedCopies(dir, basename(path));
    return dlopen(path);
  }
  const once = mkdtempSync(join(tmpdir(), "ragd-lancedb-"));
  try {
    const path = join(once, `${lib.name}.node`);
    writeCopy(path, lib);
    return dlopen(path);
  } finally {
    // Loaded: the mapping stays valid once the file is gone (Windows refuses to remove a
    // loaded library; its temporary directory then stays).
    try {
      rmSync(once, { recursive: true, force: true });
    } catch {}
  }
}

/** The cache directory, created if missing; null when it cannot be made or trusted. */
export function privateCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const xdg = env.XDG_CACHE_HOME;
  const home = safeHome();
  const base = xdg && isAbsolute(xdg) ? xdg : home ? join(home, ".cache") : null;
  if (!base) return null;
  const dir = join(base, "ragd");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Windows has no owner and mode bits to read here: a profile's folders are private
    // to their user by their access lists.
    if (process.platform === "win32") return dir;
    const own = lstatSync(dir);
    const parent = statSync(dirname(dir));
    const uid = process.getuid?.() ?? 0;
    if (!own.isDirectory() || own.uid !== uid || own.mode & 0o022) return null;
    if ((parent.uid !== uid && parent.uid !== 0) || parent.mode & 0o022) return null;
    return dir;
  } catch {
    return null;
  }
}

function safeHome(): string | null {
  try {
    const home = homedir();
    return home && isAbsolute(home) && home !== "/" ? home : null;
  } catch {
    return null;
  }
}

const DAY_MS = 86_400_000;
/** Another release's copy unused this long is removed. */
const UNUSED_MS = 7 * DAY_MS;

/** The copy's status when it can be loaded as it is; null when it must be written. */
function usableCopy(path: string, size: number): { mtimeMs: number } | null {
  const st = lstatSync(path, { throwIfNoEntry: false });
  const ok = !!st && st.isFile() && st.uid === (process.getuid?.() ?? 0) && !(st.mode & 0o022) && st.size === size;
  return ok ? st : null;
}

/** Marks a copy as used now; a copy that cannot be marked is still loaded. */
function markUsed(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {}
}

/** Decompresses, checks the hash, writes beside `path` and renames onto it. */
function writeCopy(path: string, lib: EmbeddedLibrary): void {
  // The window `zstd --long=27` compressed with (scripts/lancedb-native.ts).
  const bytes = zstd.zstdDecompressSync(readFileSync(lib.compressed), {
    params: { [zstd.constants.ZSTD_d_windowLogMax]: 27 },
  });
  const hash = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  if (bytes.length !== lib.size || hash !== lib.sha256)
    throw new Error(`the embedded LanceDB library is damaged (sha256 ${hash}, expected ${lib.sha256})`);
  const tmp = `${dirname(path)}/.${process.pid}-${crypto.randomUUID()}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/**
 * Other releases' copies unused for a week (a process using one keeps its mapping), and
 * what a start that ended while writing left over an hour ago. What cannot be removed
 * (Windows keeps a loaded library) stays.
 */
function removeUnusedCopies(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const copy = name !== keep && /^lancedb-.*\.node$/.test(name);
    const leftover = /^\.\d+-[\w-]+\.tmp$/.test(name);
    if (!copy && !leftover) continue;
    try {
      const age = now - lstatSync(path).mtimeMs;
      if (age > (copy ? UNUSED_MS : 3_600_000)) rmSync(path, { force: true });
    } catch {}
  }
}

function dlopen(path: string): unknown {
  const module = { exports: {} };
  process.dlopen(module, path);
  return module.exports;
}
