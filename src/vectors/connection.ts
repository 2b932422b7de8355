/**
 * The LanceDB connection: under `<dataDir>/lance`, or under `<prefix>/lance` in a bucket
 * of an S3-compatible store (docs/ARCHITECTURE.md, Object storage). This is the one file
 * that knows where the tables live. A default connection never sees another
 * connection's writes; on a data directory it is opened with a read consistency interval
 * of 0, so every read sees the latest commit (a look at the directory costs microseconds).
 * On a bucket that look is a listing, 40-50 ms on the test store for every search, count
 * and read, several per query: there a table's handle looks again once a second
 * (OBJECT_STORE_CONSISTENCY_S). This process's own writes go through the same handles and
 * are seen at once; another replica's, within that second. It is opened with bounded caches:
 * LanceDB's defaults (6 GB of index cache, 1 GB of metadata cache) are sized for
 * a database server, not a process that shares a laptop.
 */
import * as lancedb from "@lancedb/lancedb";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_INDEX_CACHE_MB } from "../config";
import { type ObjectStorage, storageKey } from "../config-storage";
import type { BucketCache } from "./bucket-cache";
import { LOCAL_CREATION, objectStoreCreation, type TableCreation } from "./table-creation";

export type LanceConnection = lancedb.Connection;

const MB = 1024n * 1024n;
/**
 * Holds the ANN and full-text indexes of the tables being queried (RAGD_INDEX_CACHE_MB). Past
 * a few million chunks a full-text index outgrows the default: its posting lists are read
 * again for every query that needs them, 25-50 s a query at 10 million chunks, where a cache
 * holding them answered in tens of milliseconds (docs/operations.md, Large pipelines).
 */
const METADATA_CACHE_BYTES = 64n * MB;

/** The caches a connection uses, with ragd's bounds. */
export function lanceSession(indexCacheMb = DEFAULT_INDEX_CACHE_MB): lancedb.Session {
  return new lancedb.Session(BigInt(indexCacheMb) * MB, METADATA_CACHE_BYTES);
}

/** How each connection's new tables are reserved (table-creation.ts); a data directory needs no reservation. */
const creations = new WeakMap<LanceConnection, TableCreation>();

export function tableCreation(conn: LanceConnection): TableCreation {
  return creations.get(conn) ?? LOCAL_CREATION;
}

/** Whether the connection's tables are in an object store (each read a request to it). */
export function onObjectStore(conn: LanceConnection): boolean {
  return creations.has(conn);
}

/** How stale (seconds) a table handle on object storage may be before it looks for newer versions. */
export const OBJECT_STORE_CONSISTENCY_S = 1;

/** The data directory, or the object store ragd keeps its data in. */
export type LanceLocation = string | ObjectStorage;

/**
 * `cache`: on a bucket, LanceDB reaches the store through this read-through cache
 * (bucket-cache.ts), which keeps the files that never change in the data directory.
 */
export async function openLance(
  where: LanceLocation,
  session = lanceSession(),
  cache: BucketCache | null = null,
): Promise<LanceConnection> {
  // The session goes inside the options: connect(uri, options, session) drops a third
  // argument that is a session, and the connection then runs on the unbounded defaults.
  if (typeof where !== "string") {
    const conn = await lancedb.connect(lanceUri(where), {
      readConsistencyInterval: OBJECT_STORE_CONSISTENCY_S,
      session,
      storageOptions: cache ? cachedOptions(where, cache) : s3Options(where),
    });
    creations.set(conn, objectStoreCreation(where));
    return conn;
  }
  const dir = join(where, "lance");
  mkdirSync(dir, { recursive: true });
  return lancedb.connect(dir, { readConsistencyInterval: 0, session });
}

/** `s3://bucket/<prefix>/lance`: the tables beside the files, as in the data directory. */
export function lanceUri(store: ObjectStorage): string {
  return `s3://${store.bucket}/${storageKey(store, "lance")}`;
}

/**
 * LanceDB's storage options for the store. No endpoint means AWS S3; no keys, the usual
 * AWS credential chain. A plain-http endpoint (a store on the same host or network) must
 * be allowed explicitly, or every request fails.
 */
export function s3Options(store: ObjectStorage): Record<string, string> {
  const opts: Record<string, string> = { aws_region: store.region };
  if (store.endpoint !== null) {
    opts.aws_endpoint = store.endpoint;
    if (store.endpoint.startsWith("http:")) opts.allow_http = "true";
  }
  if (store.accessKeyId !== null && store.secretAccessKey !== null) {
    opts.aws_access_key_id = store.accessKeyId;
    opts.aws_secret_access_key = store.secretAccessKey;
  }
  return opts;
}

/** The options that send LanceDB through the cache: its endpoint on loopback, path-style, its made-up keys. */
function cachedOptions(store: ObjectStorage, cache: BucketCache): Record<string, string> {
  return {
    aws_region: store.region,
    aws_endpoint: cache.endpoint,
    allow_http: "true",
    aws_virtual_hosted_style_request: "false",
    aws_access_key_id: cache.accessKeyId,
    aws_secret_access_key: cache.secretAccessKey,
  };
}
