/**
 * The settings of running on several machines (PostgreSQL and object storage;
 * docs/operations.md). They are read and checked like any other. `serve` (and `user`, `admin`
 * beside it) keeps its metadata in PostgreSQL when RAGD_DATABASE_URL is set and its
 * vectors and files in a bucket when RAGD_STORAGE_URL is; the commands that copy the data
 * directory (backup, restore, export, import) refuse both, so that nobody believes their
 * data is somewhere it is not.
 */
import type { Config } from "./config";
import { ConfigError, redactPassword } from "./config-values";

const S3_SETTINGS = [
  ["s3Endpoint", "RAGD_S3_ENDPOINT"],
  ["s3Region", "RAGD_S3_REGION"],
  ["s3AccessKeyId", "RAGD_S3_ACCESS_KEY_ID"],
  ["s3SecretAccessKey", "RAGD_S3_SECRET_ACCESS_KEY"],
] as const;

/** Settings that only make sense together: a key without its secret, S3 settings without a bucket. */
export function checkStorage(c: Config): void {
  const s3 = S3_SETTINGS.filter(([key]) => c[key] !== null).map(([, env]) => env);
  if (s3.length > 0 && c.storage === null)
    throw new ConfigError(
      `${s3.join(", ")} ${s3.length === 1 ? "applies" : "apply"} only with RAGD_STORAGE_URL (s3://bucket/prefix), which is unset`,
    );
  if ((c.s3AccessKeyId === null) !== (c.s3SecretAccessKey === null))
    throw new ConfigError("RAGD_S3_ACCESS_KEY_ID and RAGD_S3_SECRET_ACCESS_KEY must be set together");
  if (c.storage !== null && c.backupDir !== null)
    throw new ConfigError(
      `RAGD_BACKUP_DIR: scheduled backups copy the data directory, and RAGD_STORAGE_URL keeps the vectors and files in ${where(c)}; unset one of them`,
    );
  if (c.databaseUrl !== null && c.backupDir !== null)
    throw new ConfigError(
      "RAGD_BACKUP_DIR: scheduled backups copy the data directory, and RAGD_DATABASE_URL keeps the metadata in PostgreSQL; back the database up with its own tools and unset RAGD_BACKUP_DIR",
    );
}

/**
 * Refuses, naming the setting, when PostgreSQL is asked for by a command that copies the
 * data directory, which then does not hold the metadata. The URL is shown without its password.
 */
export function requireLocalDatabase(c: Config): void {
  if (c.databaseUrl === null) return;
  throw new ConfigError(
    `this command works on a data directory alone, and RAGD_DATABASE_URL (or --database-url) is ` +
      `${redactPassword(c.databaseUrl)}: the metadata there is not part of it; back the database up with PostgreSQL's own tools`,
  );
}

/**
 * For `serve` and the commands that work beside it (`user`, `admin`): a bucket only with keys, as ragd signs its uploads, reads and claims itself
 * (files/presign.ts); the usual AWS credential chain would serve LanceDB alone.
 */
export function requireServableStorage(c: Config): void {
  if (c.storage !== null && c.s3AccessKeyId === null)
    throw new ConfigError(
      `RAGD_STORAGE_URL (${where(c)}) needs RAGD_S3_ACCESS_KEY_ID and RAGD_S3_SECRET_ACCESS_KEY: ragd signs its uploads to the store itself`,
    );
}

/**
 * For the commands that copy the data directory whole (`backup`, `restore`, `export`,
 * `import`): they refuse PostgreSQL, and object storage, whose vectors and files they
 * would leave behind.
 */
export function requireLocalStorage(c: Config, command: string): void {
  requireLocalDatabase(c);
  if (c.storage === null) return;
  throw new ConfigError(
    `ragd ${command} works on a data directory alone, and RAGD_STORAGE_URL (or --storage-url) is ${where(c)}: ` +
      "the vectors and files there are not part of it; copy the bucket with the store's own tools",
  );
}

function where(c: Config): string {
  return `s3://${c.storage!.bucket}${c.storage!.prefix ? `/${c.storage!.prefix}` : ""}`;
}

/** Where and how to reach the object store: the settings above, resolved to what a client needs. */
export interface ObjectStorage {
  bucket: string;
  /** "" or "a/b": every key ragd writes starts with it. */
  prefix: string;
  /** The store's http(s) URL, no trailing slash; null: AWS S3 in `region`. */
  endpoint: string | null;
  region: string;
  /** Null: the client's own credential chain (environment, instance role) applies. */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** The endpoint names the bucket in its host name (`bucket.host`) rather than in the path; a bucket source's choice. */
  virtualHosted?: boolean;
}

/** S3's own default region, which S3-compatible stores accept whatever they call themselves. */
const DEFAULT_REGION = "us-east-1";

/** The object store the settings name, or null when ragd keeps its data in the data directory. */
export function objectStorage(c: Config): ObjectStorage | null {
  if (c.storage === null) return null;
  const region = c.s3Region ?? DEFAULT_REGION;
  return {
    bucket: c.storage.bucket,
    prefix: c.storage.prefix,
    endpoint: c.s3Endpoint,
    region,
    accessKeyId: c.s3AccessKeyId,
    secretAccessKey: c.s3SecretAccessKey,
  };
}

/** The key of `path` under the store's prefix. */
export function storageKey(store: ObjectStorage, path: string): string {
  return store.prefix ? `${store.prefix}/${path}` : path;
}

/**
 * Whether this server is one of several replicas sharing one service (contract section
 * 14): metadata in PostgreSQL and vectors and files in a bucket, so that nothing any
 * request needs lives in one process's data directory.
 */
export function servesAsReplica(c: Pick<Config, "databaseUrl" | "storage">): boolean {
  return c.databaseUrl !== null && c.storage !== null;
}
