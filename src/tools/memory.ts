/**
 * Keeps the C heap that LanceDB's threads allocate from small: glibc gives each thread
 * that meets contention an arena of its own (up to 8 per core), and freed pages stay
 * resident in every one of them, scattered between live blocks. A no-op where the C
 * library is not glibc (musl, macOS, Windows).
 */
import { dlopen, FFIType } from "bun:ffi";

interface Glibc {
  mallopt(param: number, value: number): number;
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
