/**
 * Copies the WAL's pages into the database file on a thread of its own (checkpointer.ts):
 * its own connection, a PASSIVE checkpoint once a second while the WAL changes.
 * Receives {path, everyMs}, then {stop: true}; answers {stopped: true}, or {error} once
 * a checkpoint fails (it then stops, and the writer checkpoints as SQLite does by itself).
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";

declare const self: Worker;

export type ToCheckpointer = { path: string; everyMs: number } | { stop: true };
export type FromCheckpointer = { stopped: true } | { error: string };

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;
/** The WAL's modification time at the last checkpoint: an unchanged WAL needs none. */
let checkedAt = -1;

function end(): void {
  if (timer) clearInterval(timer);
  timer = null;
  db?.close();
  db = null;
}

function tick(path: string): void {
  let changed: number;
  try {
    changed = statSync(`${path}-wal`).mtimeMs;
  } catch {
    return; // no WAL yet, or between a close and a reopen
  }
  if (changed === checkedAt || !db) return;
  checkedAt = changed;
  try {
    db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (err) {
    end();
    self.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies FromCheckpointer);
  }
}

self.onmessage = (e: MessageEvent<ToCheckpointer>) => {
  const m = e.data;
  if ("stop" in m) {
    end();
    self.postMessage({ stopped: true } satisfies FromCheckpointer);
    return;
  }
  try {
    db = new Database(m.path, { strict: true });
    db.exec("PRAGMA busy_timeout = 5000");
    timer = setInterval(() => tick(m.path), m.everyMs);
  } catch (err) {
    end();
    self.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies FromCheckpointer);
  }
};
