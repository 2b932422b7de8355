/**
 * The LanceDB connection under `<dataDir>/lance`. Opened with a read consistency
 * interval of 0 so that every read sees the latest committed writes (a default
 * connection never sees another connection's writes), and with bounded caches:
 * LanceDB's defaults (6 GB of index cache, 1 GB of metadata cache) are sized for
 * a database server, not a process that shares a laptop.
 */
import * as lancedb from "@lancedb/lancedb";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export type LanceConnection = lancedb.Connection;

const MB = 1024n * 1024n;
/** Holds the ANN and full-text indexes of the tables being queried. */
const INDEX_CACHE_BYTES = 512n * MB;
const METADATA_CACHE_BYTES = 64n * MB;

/** The caches a connection uses, with ragd's bounds. */
export function lanceSession(): lancedb.Session {
  return new lancedb.Session(INDEX_CACHE_BYTES, METADATA_CACHE_BYTES);
}

export async function openLance(dataDir: string, session = lanceSession()): Promise<LanceConnection> {
  const dir = join(dataDir, "lance");
  mkdirSync(dir, { recursive: true });
  // The session goes inside the options: connect(uri, options, session) drops a third
  // argument that is a session, and the connection then runs on the unbounded defaults.
  return lancedb.connect(dir, { readConsistencyInterval: 0, session });
}
