/**
 * Free space on the disk holding a directory, and the one error for a write that
 * does not fit. Knows nothing of HTTP: src/http/errors.ts answers DiskFullError
 * (and any error `isOutOfSpace` recognises) with 507 insufficient_storage.
 */
import { statfsSync } from "node:fs";

const MB = 1024 * 1024;

/** Space an unprivileged process may still write on the disk holding `dir`, in MB; null when unknown. */
export function freeMb(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return (s.bavail * s.bsize) / MB;
  } catch {
    return null;
  }
}

/** "12", or "0.4" below 10 MB, where a tenth matters. */
const shown = (mb: number) => (mb >= 10 ? String(Math.floor(mb)) : (Math.floor(mb * 10) / 10).toString());

/** The sentence a person reads: which disk to clear, and how full it is. */
export function diskFullMessage(dir: string, free: number | null): string {
  return `the disk holding ${dir} is full (${free === null ? "unknown" : shown(free)} MB free)`;
}

/** A SQL LIKE pattern matching `diskFullMessage` (and what may follow it), for finding such failures again. */
export const DISK_FULL_LIKE = "the disk holding % is full (% MB free)%";

/** A write refused, or failed, for want of space on the disk holding `dir`. */
export class DiskFullError extends Error {
  readonly code = "disk_full";
  constructor(
    readonly dir: string,
    readonly free: number | null = freeMb(dir),
  ) {
    super(diskFullMessage(dir, free));
    this.name = "DiskFullError";
  }
}

/**
 * Refuses, before anything is written, a write of `bytes` that would leave less than
 * `minFreeMb` free (and any write while the disk is already under it).
 */
export function ensureRoom(dir: string, minFreeMb: number, bytes = 0): void {
  const free = freeMb(dir);
  if (free !== null && free - bytes / MB < minFreeMb) throw new DiskFullError(dir, free);
}

// SQLite's SQLITE_FULL ("database or disk is full"), errno ENOSPC, and the Rust
// io::Error text LanceDB passes on ("No space left on device (os error 28)").
const OUT_OF_SPACE = /SQLITE_FULL|database or disk is full|ENOSPC|no space left on device|os error 28\b/i;

/** True when `err` (an Error, its cause, or a message) says the disk is full. */
export function isOutOfSpace(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DiskFullError) return true;
    if (typeof e === "string") return OUT_OF_SPACE.test(e);
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === "SQLITE_FULL" || code === "ENOSPC") return true;
    if (typeof message === "string" && OUT_OF_SPACE.test(message)) return true;
  }
  return false;
}
