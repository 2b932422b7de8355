/**
 * Where a vector index is trained. In the server, in a child process: LanceDB runs its
 * compute-heavy work (index training, and the distance computations of every vector
 * search) on one pool per process, of one thread on a 2-core machine, so a build in
 * the server's own process queues searches behind its tasks for as long as it runs.
 * A child has pools of its own and the operating system shares the cores between
 * the two. It runs at the server's priority: a lower one starved the build on a busy
 * machine, and the slower old index then served for longer. The child commits the
 * index to the table like any other writer; the server sees it on its next read (the
 * connection reads the latest version) and drops the index it replaces.
 */
import type { Table } from "@lancedb/lancedb";
import { basename, join } from "node:path";
import { annIndexFor } from "./ann";
import type { ObjectStorage } from "../config-storage";
import { type LanceLocation, lanceUri, openLance } from "./connection";
import { retryOnConflict } from "./retry";
import { vectorDim } from "./tables";
import { allDone } from "../tools/all-done";

/**
 * Trains the index `annIndexFor(rows, dim)` names on a table and commits it; `stop`
 * ends builds still running (the server is shutting down).
 */
export type IndexBuilder = ((table: Table, tableName: string, rows: number) => Promise<void>) & { stop?(): void };

/** The hidden command line of the child (main.ts). */
export const BUILD_COMMAND = "build-vector-index";

/** Trains in this process (tests, benches, and tools that serve no queries). */
export const inProcess: IndexBuilder = async (table, _name, rows) => {
  const next = annIndexFor(rows, await vectorDim(table));
  await retryOnConflict(() => table.createIndex("vector", { config: next.config, name: next.name, replace: true }));
};

/**
 * The child's environment variable carrying the object store's settings, keys included:
 * a command line shows in process listings, the environment does not.
 */
const STORE_ENV = "RAGD_INDEX_BUILD_STORE";

/** Trains in a child process of this executable, on the same LanceDB: the data directory's or the bucket's. */
export function childProcess(where: LanceLocation): IndexBuilder {
  // The child is told the tables' URI (no secret in it) and reads the settings from its environment.
  const location = typeof where === "string" ? where : lanceUri(where);
  const env = typeof where === "string" ? undefined : { ...process.env, [STORE_ENV]: JSON.stringify(where) };
  // What the child printed goes into an error and the log: never with the store's secret in it.
  const secret = typeof where === "string" ? null : where.secretAccessKey;
  const shown = (text: string) => (secret ? text.replaceAll(secret, "***") : text);
  // A build outliving the server would write to a data directory nobody serves (or
  // that a test has removed): the server ends its children when it stops.
  const live = new Set<Bun.Subprocess>();
  const build: IndexBuilder = async (_table, tableName, rows) => {
    const proc = Bun.spawn([...selfCommand(), BUILD_COMMAND, location, tableName, String(rows)], {
      env,
      stdout: "ignore",
      stderr: "pipe",
    });
    live.add(proc);
    try {
      const [code, err] = await allDone([proc.exited, new Response(proc.stderr).text()]);
      if (code !== 0) throw new Error(`index build exited with ${code}: ${shown(err).trim().slice(-500)}`);
    } finally {
      live.delete(proc);
    }
  };
  build.stop = () => {
    for (const proc of live) proc.kill();
  };
  return build;
}

/** The child's side: opens the data directory's LanceDB, or the bucket's, and trains. */
export async function buildIndexCommand(args: string[]): Promise<number> {
  const [location, tableName, rows] = args;
  if (!location || !tableName || !/^\d+$/.test(rows ?? "")) {
    console.error(`usage: ragd ${BUILD_COMMAND} <data dir | s3://bucket/prefix/lance> <table> <rows>`);
    return 2;
  }
  const where = location.startsWith("s3://") ? storeOf(location) : location;
  if (where === null) {
    console.error(`ragd ${BUILD_COMMAND}: ${STORE_ENV} does not hold the settings of ${location}`);
    return 2;
  }
  const conn = await openLance(where);
  try {
    const table = await conn.openTable(tableName);
    await inProcess(table, tableName, Number(rows));
    table.close();
    return 0;
  } finally {
    conn.close();
  }
}

/** The settings the server passed in the environment, if they are those of `uri`. */
function storeOf(uri: string): ObjectStorage | null {
  try {
    const store = JSON.parse(process.env[STORE_ENV] ?? "null") as ObjectStorage | null;
    return store && lanceUri(store) === uri ? store : null;
  } catch {
    return null;
  }
}

/** This executable: the compiled binary itself, or Bun running main.ts from a checkout. */
function selfCommand(): string[] {
  return /^bun(\.exe)?$/.test(basename(process.execPath))
    ? [process.execPath, join(import.meta.dir, "..", "main.ts")]
    : [process.execPath];
}
