/**
 * Copies the WAL back into the database file on a thread of its own (checkpointer.ts
 * says when and why). Messages: `{type: "open", path}` first, then `{type: "wrote"}`
 * after each commit and `{type: "close"}` last. GATHER_MS after the first "wrote" not yet
 * covered it checkpoints and answers `{type: "done", frames, copied}` (or `{type:
 * "failed", error}`); it answers "close" with `{type: "closed"}`.
 */
import { Database } from "bun:sqlite";
import type { FromCheckpointer, ToCheckpointer } from "./checkpointer";

declare const self: Worker;

/**
 * How long after the first commit it is told of a checkpoint waits, so that one pass
 * copies what many commits wrote: each pass ends with two fsyncs.
 */
const GATHER_MS = 250;

let db: Database | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function send(msg: FromCheckpointer): void {
  self.postMessage(msg);
}

/** PASSIVE: copies what no reader still needs and never waits for the writer or readers. */
function checkpoint(): void {
  timer = null;
  if (!db) return;
  try {
    const r = db.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number };
    send({ type: "done", frames: r.log, copied: r.checkpointed });
  } catch (err) {
    send({ type: "failed", error: err instanceof Error ? err.message : String(err) });
  }
}

self.onmessage = (e: MessageEvent<ToCheckpointer>) => {
  const msg = e.data;
  if (msg.type === "open") {
    try {
      db = new Database(msg.path);
      db.exec("PRAGMA busy_timeout = 5000");
    } catch (err) {
      send({ type: "failed", error: err instanceof Error ? err.message : String(err) });
    }
  } else if (msg.type === "wrote") {
    timer ??= setTimeout(checkpoint, GATHER_MS);
  } else {
    if (timer) clearTimeout(timer);
    timer = null;
    db?.close();
    db = null;
    send({ type: "closed" });
  }
};
