/**
 * The settings of running on several machines (PostgreSQL and object storage; README,
 * Configuration). They are read and checked like any other, but this build cannot run on
 * them yet: the commands that keep data refuse to start when they are set, so that nobody
 * believes their data is in PostgreSQL or a bucket while it goes to the data directory.
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
}

/**
 * Refuses, naming the setting, when PostgreSQL or object storage is asked for: this build
 * keeps everything in the data directory. The database URL is shown without its password.
 */
export function requireLocalStorage(c: Config): void {
  const wanted: string[] = [];
  const names: string[] = [];
  if (c.databaseUrl !== null) {
    wanted.push(`in PostgreSQL (RAGD_DATABASE_URL or --database-url is ${redactPassword(c.databaseUrl)})`);
    names.push("RAGD_DATABASE_URL");
  }
  if (c.storage !== null) {
    const where = `s3://${c.storage.bucket}${c.storage.prefix ? `/${c.storage.prefix}` : ""}`;
    wanted.push(`in object storage (RAGD_STORAGE_URL or --storage-url is ${where})`);
    names.push("RAGD_STORAGE_URL");
  }
  if (wanted.length === 0) return;
  throw new ConfigError(
    `this build of ragd cannot keep its data ${wanted.join(" or ")} yet, and will not start rather than ` +
      `quietly use the data directory; unset ${names.join(" and ")} to run on ${c.dataDir}`,
  );
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
