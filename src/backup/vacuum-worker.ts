/**
 * Copies SQLite with `VACUUM INTO` on a thread of its own: the copy of a large
 * database takes seconds, and on the main thread no request would be answered
 * meanwhile. Receives {from, to}; answers {ok: true} or {ok: false, error}.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

self.onmessage = (e: MessageEvent<{ from: string; to: string }>) => {
  try {
    // Its own read-only connection: WAL lets it read a consistent state beside the writer.
    const db = new Database(e.data.from, { readonly: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      db.query("VACUUM INTO ?").run(e.data.to);
    } finally {
      db.close();
    }
    self.postMessage({ ok: true });
  } catch (err) {
    self.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
