/**
 * The ingestion workers run below the main thread's CPU priority (docs/configuration.md:
 * RAGD_WORKER_NICE). The main thread answers requests and is the one writer of SQLite
 * and LanceDB, a serial path every document goes through; the workers' embedding is
 * work that can wait. On a machine with fewer cores than busy threads, equal shares
 * left the main thread waiting for a core behind the workers while their rows queued
 * for its commits (docs/notes/2026-12-06-ingestion-time.md).
 */
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * Lowers the calling thread's priority by `nice` (0–19). Linux only: there
 * setpriority() given a thread id changes that thread alone, and /proc/thread-self
 * names it; elsewhere it would change the whole process, so nothing is done.
 * Returns whether the priority was set.
 */
export function niceThisThread(nice: number): boolean {
  if (nice <= 0 || process.platform !== "linux") return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    // A new thread starts at its creator's nice value; setPriority sets, it does not add.
    setPriority(tid, Math.min(19, getPriority(tid) + nice));
    return true;
  } catch {
    // No /proc (a container without it), or a nice the system refuses: equal shares, as before.
    return false;
  }
}
