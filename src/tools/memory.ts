/**
 * Keeps the C heap that LanceDB's threads allocate from small, and gives memory that
 * is free but still held back to the operating system. glibc gives each thread that
 * meets contention an arena of its own (up to 8 per core), and freed pages stay
 * resident in every one of them; the JavaScript heap is collected only as allocation
 * goes on, so not while the process is idle. Both are no-ops where the C library is
 * not glibc (musl, macOS, Windows).
 */
import { dlopen, FFIType } from "bun:ffi";

interface Glibc {
  mallopt(param: number, value: number): number;
  malloc_trim(pad: number): number;
}

/** mallopt's parameter for the most arenas glibc may create. */
const M_ARENA_MAX = -8;

let glibc: Glibc | null | undefined;

function load(): Glibc | null {
  if (glibc !== undefined) return glibc;
  glibc = null;
  if (process.platform !== "linux") return glibc;
  try {
    const lib = dlopen("libc.so.6", {
      mallopt: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 },
    });
    glibc = lib.symbols as unknown as Glibc;
  } catch {
    // Not glibc: nothing to tune this way.
  }
  return glibc;
}

/** Caps glibc's malloc arenas; call before the threads that allocate start. False without glibc. */
export function limitMallocArenas(n: number): boolean {
  return (load()?.mallopt(M_ARENA_MAX, n) ?? 0) === 1;
}

/**
 * A full collection of this thread's heap, then malloc_trim(0), which returns the free
 * pages of every arena. False when there was no C heap to trim.
 */
export function releaseMemory(): boolean {
  Bun.gc(true);
  const libc = load();
  if (!libc) return false;
  libc.malloc_trim(0);
  return true;
}
