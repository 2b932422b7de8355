/**
 * An exclusive lock on a file, held for the life of the process.
 *
 * Why flock(2) through libc: the kernel drops the lock when the process dies, however
 * it dies (kill -9 included), so a lock is never left stale; a pid file would need a
 * guess at whether its pid is still the same process. Bun's API has no flock, so
 * bun:ffi calls libc's, which also works inside the compiled executable. A flock
 * belongs to the open file, not the process: a second open of the same file, even in
 * this process, is refused; and the file is opened close-on-exec, so no child keeps it.
 * Other ways were weighed: an SQLite database held in exclusive locking mode has the
 * same guarantee, but then nobody can read from it the pid of its holder; a listening
 * socket in the directory leaves its file behind and races between "is it stale" and
 * "take it over".
 */
import { dlopen, FFIType, type Pointer, read } from "bun:ffi";
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";

const LOCK_EX = 2;
const LOCK_NB = 4;

interface Libc {
  flock(fd: number, op: number): number;
  errno(): number;
  /** errno's value for "someone else holds the lock". */
  wouldBlock: number;
}

let libc: Libc | null | undefined;

/** libc's flock and errno, or null where they cannot be loaded (not Linux or macOS). */
function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  const platforms: Record<string, { names: string[]; errno: string; wouldBlock: number }> = {
    linux: {
      // glibc, then musl (Alpine)
      names: ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`],
      errno: "__errno_location",
      wouldBlock: 11,
    },
    darwin: { names: ["libc.dylib", "libSystem.B.dylib"], errno: "__error", wouldBlock: 35 },
  };
  const p = platforms[process.platform];
  libc = null;
  for (const name of p?.names ?? []) {
    try {
      const lib = dlopen(name, {
        flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        [p!.errno]: { args: [], returns: FFIType.ptr },
      });
      const errnoAt = lib.symbols[p!.errno] as () => Pointer | null;
      libc = {
        flock: (fd, op) => lib.symbols.flock(fd, op) as number,
        errno: () => {
          const at = errnoAt();
          return at ? read.i32(at, 0) : 0;
        },
        wouldBlock: p!.wouldBlock,
      };
      break;
    } catch {
      // try the next name
    }
  }
  return libc;
}

export type LockResult =
  /** Locked; `release` lets go early (the lock goes with the process anyway). */
  | { locked: true; release(): void }
  /** Another process holds it; `holder` is the pid it wrote, when it did. */
  | { locked: false; holder: number | null }
  /** Locks cannot be taken here (platform or file system); `reason` says why. */
  | { locked: null; reason: string };

/**
 * Takes the lock on `path` without waiting, creating the file if needed, and writes
 * this process's pid into it for whoever is refused next.
 */
export function lockFile(path: string): LockResult {
  const c = loadLibc();
  if (!c) return { locked: null, reason: `file locks are not available on ${process.platform}` };
  const fd = openSync(path, "a+", 0o644);
  if (c.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = c.errno();
    closeSync(fd);
    if (errno !== c.wouldBlock) return { locked: null, reason: `flock failed (errno ${errno})` };
    return { locked: false, holder: holderOf(path) };
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  return { locked: true, release: () => closeSync(fd) };
}

/** The pid written in a lock file, or null (not written yet, or unreadable). */
function holderOf(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
