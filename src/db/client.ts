/**
 * Opens the SQLite database (WAL, busy timeout, foreign keys) and applies the
 * migrations embedded in the binary. Safe to call on an existing data dir and
 * from a second process (the CLI) while a server runs.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrations } from "./migrations/index";
import { RecentCache } from "../tools/recent-cache";
import { splitCredentials } from "../tools/url-credentials";
import { ConfigError } from "../config-values";
import { version } from "../version";
import * as schema from "./schema";
import type { Logger } from "../log";
import { throttledLogger } from "../log-throttle";
import { Checkpointer, SAFETY_BYTES } from "./checkpointer";
import { SqliteStore, type Store } from "./store";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/**
 * The writing connection's page cache (SQLite's default is 2 MiB). With the default, a
 * warm run of 5,000 small documents through the batch API read 4,600 pages back from the
 * database file and about 5,600 from the WAL on the main thread, beside the checkpoints'
 * reads; with 32 MiB, about 1,200 and 900. Temporary tables and statement journals stay
 * in memory: as files they took 13,000 writes in that run (bench/batch.ts).
 */
const WRITER_CACHE_KIB = 32 * 1024;

/**
 * The page size of a new database (SQLite's default is 4 KiB). A commit writes each page
 * it changed to the WAL, two writes a page: 5,000 small documents through the batch API
 * changed about 6,800 pages in some 80 commits, and the writes were a quarter of the
 * main thread's time in SQLite. With 16 KiB pages the same documents took 15 % less
 * time in SQLite statements and commits (docs/notes/2026-12-06-ingestion-time.md). A database that exists keeps the page size it was made with.
 */
const PAGE_BYTES = 16 * 1024;

/**
 * The WAL size past which a commit copies the WAL back into the database (SQLite's
 * default is 1,000 pages, 4 MiB with its default pages). That copy ends with two fsyncs,
 * about 5 ms each on a plain disk, and it runs inside the commit on the main thread. At
 * 16 MiB of WAL a process that took 15,000 small documents spent 15 % less time in
 * COMMIT (docs/notes/2026-12-06-ingestion-time.md). A server's store copies on
 * a thread of its own instead (checkpointer.ts); this is for the commands beside it.
 */
const WAL_CHECKPOINT_BYTES = 16 * 1024 * 1024;

/** `bytes` of WAL in the database's own pages, for `PRAGMA wal_autocheckpoint`. */
function walPages(sqlite: Database, bytes: number): number {
  const { page_size } = sqlite.query("PRAGMA page_size").get() as { page_size: number };
  return Math.max(1, Math.round(bytes / page_size));
}

/** Opens `<dataDir>/ragd.db`, creating the directory if needed, and migrates it. */
export function openDb(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new Database(join(dataDir, "ragd.db"), { create: true, strict: true });
  sqlite.exec("PRAGMA busy_timeout = 5000");
  // Before anything is written: on a database that exists it changes nothing.
  sqlite.exec(`PRAGMA page_size = ${PAGE_BYTES}`);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  sqlite.exec(`PRAGMA cache_size = -${WRITER_CACHE_KIB}`);
  sqlite.exec(`PRAGMA wal_autocheckpoint = ${walPages(sqlite, WAL_CHECKPOINT_BYTES)}`);
  migrate(sqlite);
  cacheStatements(sqlite);
  return drizzle({ client: sqlite, schema }) as Db;
}

/**
 * A server's store: checkpoints on their own thread, their failures logged once a minute
 * at most (on a full disk every pass fails, one after each commit).
 */
export function openServerStore(dataDir: string, log: Logger): Store {
  const quiet = throttledLogger(log);
  return openStore(dataDir, {
    checkpoints: "background",
    onCheckpointError: (error) => quiet.warn("a background WAL checkpoint failed", { error }),
  });
}

/** How a store is opened: `checkpoints` "background" for a server (checkpointer.ts). */
export interface StoreOptions {
  checkpoints?: "on-commit" | "background";
  /** Told when the checkpoint worker fails (the writing connection's own checkpoints go on). */
  onCheckpointError?: (message: string) => void;
}

/**
 * The data directory's database as the store (db/store.ts): the connection `openDb`
 * returns writes, a second read-only one on the same file reads.
 */
export function openStore(dataDir: string, opts: StoreOptions = {}): Store {
  const writer = openDb(dataDir);
  const sqlite = new Database(join(dataDir, "ragd.db"), { readonly: true, strict: true });
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  cacheStatements(sqlite);
  let checkpointer: Checkpointer | null = null;
  if (opts.checkpoints === "background") {
    writer.$client.exec(`PRAGMA wal_autocheckpoint = ${walPages(writer.$client, SAFETY_BYTES)}`);
    checkpointer = new Checkpointer(join(dataDir, "ragd.db"), opts.onCheckpointError);
  }
  return new SqliteStore(writer, drizzle({ client: sqlite, schema }) as Db, checkpointer);
}

/**
 * drizzle prepares every query afresh; on the ingestion path that was a tenth of
 * the main thread's time. Compiled statements are kept per SQL text (up to 500 of the
 * most recently used, tools/recent-cache.ts), and reused: bun:sqlite runs each
 * synchronously, so no two uses overlap.
 */
function cacheStatements(sqlite: Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new RecentCache<string, ReturnType<typeof prepare>>(500);
  sqlite.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = prepare(sql)));
    return stmt;
  }) as typeof sqlite.prepare;
}

/** Data changes SQL cannot make exactly, run right after their migration, in its transaction. */
const DATA_STEPS: Record<string, (sqlite: Database) => void> = {
  // The API reports a text's length as JavaScript counts it (UTF-16 units); SQLite's
  // length() counts code points and stops at a NUL.
  "0003_document_texts": (sqlite) => {
    const update = sqlite.prepare("UPDATE documents SET content_length = ? WHERE id = ?");
    for (const row of sqlite.query("SELECT document_id AS id, content FROM document_texts").iterate() as Iterable<{
      id: string;
      content: string;
    }>) {
      update.run(row.content.length, row.id);
    }
  },
  // Sources stored before kept `user:password@` in `url` and in the default name (the URL):
  // move it to url_credentials, which only the fetcher reads.
  "0005_source_url_credentials": (sqlite) => {
    const update = sqlite.prepare("UPDATE documents SET url = ?, url_credentials = ?, name = ? WHERE id = ?");
    const rows = sqlite
      .query("SELECT id, url, name FROM documents WHERE type IN ('url', 'api') AND url LIKE '%@%'")
      .all() as { id: string; url: string; name: string }[];
    for (const row of rows) {
      const { url, credentials } = splitCredentials(row.url);
      if (!credentials) continue;
      update.run(url, credentials, row.name === row.url.slice(0, 200) ? url.slice(0, 200) : row.name, row.id);
    }
  },
};

/**
 * A database a newer ragd has migrated: this build does not know its schema, and writing to
 * it could lose what the newer one stored. A ConfigError, so the command exits 2 (a restart
 * does not mend it), with one line, as a backup from a newer ragd is refused.
 */
export class NewerDataError extends ConfigError {}

/** Applies every embedded migration (or those of `list`) not yet recorded, each in its own transaction. */
export function migrate(sqlite: Database, list = migrations): void {
  sqlite.exec("CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  refuseNewerData(sqlite, list);
  for (const m of list) {
    // BEGIN IMMEDIATE takes the write lock first, so two processes starting
    // together cannot both apply the same migration.
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      const done = sqlite.query("SELECT 1 FROM _migrations WHERE tag = ?").get(m.tag);
      if (!done) {
        for (const stmt of m.sql.split("--> statement-breakpoint")) {
          if (stmt.trim()) sqlite.exec(stmt);
        }
        DATA_STEPS[m.tag]?.(sqlite);
        sqlite.query("INSERT INTO _migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, new Date().toISOString());
      }
      sqlite.exec("COMMIT");
    } catch (err) {
      sqlite.exec("ROLLBACK");
      throw err;
    }
  }
}

/** Throws NewerDataError when the database records migrations that `list` does not have. */
function refuseNewerData(sqlite: Database, list: readonly { tag: string }[]): void {
  const known = new Set(list.map((m) => m.tag));
  const recorded = sqlite.query("SELECT tag FROM _migrations ORDER BY tag").all() as { tag: string }[];
  const unknown = recorded.map((r) => r.tag).filter((t) => !known.has(t));
  if (unknown.length === 0) return;
  throw new NewerDataError(
    `this data directory was written by a newer ragd than ${version}: its database has migrations this one does not know ` +
      `(${unknown.join(", ")}); run that newer ragd on it, or restore a backup made by this version into a new directory`,
  );
}
