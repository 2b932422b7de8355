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
