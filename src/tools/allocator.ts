/**
 * The memory allocator's settings for a long-running server. Bun allocates through
 * mimalloc, which gives memory that a thread freed back to the operating system 10 ms
 * later by default; the next allocation of that size then takes a page fault for every
 * 4 KiB it touches again. A server taking a burst of documents frees and reallocates
 * request bodies, messages and Arrow buffers many times a second: in `bench/batch.ts`
 * (5,000 abstracts) its main thread took about 130,000 faults per run, and on a virtual
 * machine one costs about 14 µs. With memory kept for a second (MIMALLOC_PURGE_DELAY=1000)
 * the main thread's CPU per chunk fell by about a sixth; the memory bench
 * (`bench/memory-load.ts`) settled at the same resident size as with the default, with a
 * higher peak during the load (docs/ARCHITECTURE.md, "Where ingestion time goes").
 *
 * mimalloc reads its settings from the environment once, when the process starts. So
 * `ragd serve` replaces itself, before loading anything else, with the same command and
 * the setting added to its environment (execve: the same process id, parent, open
 * descriptors and signals). A value the user set is kept; `--watch` (npm run dev) and
 * platforms without execve run as they are, and so does a process under Bun's CPU
 * profiler (`--cpu-prof`, by flag or BUN_OPTIONS): its sampling thread stops the main
 * thread with a signal (SIGPWR) every few hundred microseconds, and one that arrived
 * across the execve, before the new program had its handler, ended it (3 starts in 6).
 * Set MIMALLOC_PURGE_DELAY yourself to profile with the server's setting.
 */

/** How long mimalloc keeps freed memory of a server before giving it back, in ms. */
export const SERVER_PURGE_DELAY_MS = 1000;

const SETTING = "MIMALLOC_PURGE_DELAY";

/** The process to become: its executable, arguments and environment. */
export interface Restart {
  path: string;
  args: string[];
  env: Record<string, string | undefined>;
}

/** What this process would restart as, or null when it runs as it is. */
export function serverRestart(
  p: Pick<NodeJS.Process, "argv" | "execArgv" | "execPath" | "env">,
  compiled: boolean,
): Restart | null {
  if (p.argv[2] !== "serve" || p.env[SETTING] !== undefined) return null;
  if (p.execArgv.some((a) => a === "--watch" || a === "--hot")) return null;
  if ([...p.execArgv, p.env.BUN_OPTIONS ?? ""].some((a) => a.includes("--cpu-prof"))) return null;
  // The compiled binary applies the runtime flags it was built with by itself.
  const args = compiled
    ? [p.execPath, ...p.argv.slice(2)]
    : [p.execPath, ...p.execArgv, p.argv[1]!, ...p.argv.slice(2)];
  return { path: p.execPath, args, env: { ...p.env, [SETTING]: String(SERVER_PURGE_DELAY_MS) } };
}

/** For `ragd serve`: becomes the same command with the server's allocator settings (above). */
export function restartWithServerAllocator(): void {
  const restart = serverRestart(process, import.meta.url.includes("$bunfs"));
  const { execve } = process as { execve?: (path: string, args: string[], env: Restart["env"]) => never };
  if (!restart || typeof execve !== "function") return;
  try {
    execve.call(process, restart.path, restart.args, restart.env);
  } catch {
    // Not replaceable here: the server runs with the allocator's defaults.
  }
}
