/**
 * The memory allocator's settings for a long-running server. Bun allocates through its
 * own build of mimalloc (3.5), whose "scavenger" thread tidies a thread's heap each time
 * the thread waits (at most every 100 ms): besides whole free pages, it gives back to the
 * operating system the free blocks inside pages that are still in use ("purge holes").
 * A server taking a burst of documents frees and reuses such blocks many times a second
 * (request bodies, strings, messages, Arrow buffers), and every 4 KiB given back faults
 * in again, zeroed, on reuse. In `bench/batch.ts` (5,000 abstracts, three pipelines) the
 * scavenger made about 7,000 of its 12,000 `madvise` calls and gave back about 740 MB;
 * with the hole sweep off (MIMALLOC_PURGE_HOLES=0) the server spent 0.154 ms of CPU per
 * warm chunk instead of 0.195–0.207, and made 10,200–10,500 chunks/s instead of
 * 7,800–8,100, while `bench/memory-load.ts` settled at about the same resident size and
 * peaked no higher (docs/notes/2026-12-06-ingestion-time.md). Whole free pages
 * are still given back after mimalloc's delay.
 *
 * mimalloc reads its settings from the environment once, when the process starts. So
 * `ragd serve` replaces itself, before loading anything else, with the same command and
 * the settings added to its environment (execve: the same process id, parent, open
 * descriptors and signals). A value the user set is kept; `--watch` (npm run dev) and
 * platforms without execve run as they are, and so does a process under Bun's CPU
 * profiler (`--cpu-prof`, by flag or BUN_OPTIONS): its sampling thread stops the main
 * thread with a signal (SIGPWR) every few hundred microseconds, and one that arrived
 * across the execve, before the new program had its handler, ended it (3 starts in 6).
 * Set the variables yourself to profile with the server's settings.
 */

/** The server's allocator settings, as environment variables. */
export const SERVER_ALLOCATOR: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES: "0" };

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
  const missing = Object.entries(SERVER_ALLOCATOR).filter(([name]) => p.env[name] === undefined);
  if (p.argv[2] !== "serve" || missing.length === 0) return null;
  if (p.execArgv.some((a) => a === "--watch" || a === "--hot")) return null;
  if ([...p.execArgv, p.env.BUN_OPTIONS ?? ""].some((a) => a.includes("--cpu-prof"))) return null;
  // The compiled binary applies the runtime flags it was built with by itself.
  const args = compiled
    ? [p.execPath, ...p.argv.slice(2)]
    : [p.execPath, ...p.execArgv, p.argv[1]!, ...p.argv.slice(2)];
  return { path: p.execPath, args, env: { ...p.env, ...Object.fromEntries(missing) } };
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
