/**
 * The readers for the settings of running on several machines (PostgreSQL and object
 * storage): good values in their normal form, bad ones refused with the setting's name
 * and without the password.
 */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config";
import { objectStorage, requireLocalStorage, requireServableStorage, storageKey } from "../src/config-storage";
import { ConfigError, postgresUrl, redactPassword, s3Location } from "../src/config-values";
import { lanceUri, s3Options } from "../src/vectors/connection";

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("accepted");
};

describe("postgresUrl", () => {
  test.each([
    "postgres://ragd:secret@db.internal:5432/ragd",
    "postgresql://ragd@127.0.0.1/ragd?sslmode=require",
    "postgres:///ragd?host=/var/run/postgresql",
  ])("accepts %s", (raw) => {
    expect(postgresUrl(raw, "RAGD_DATABASE_URL")).toBe(raw);
  });

  test.each([
    ["mysql://u:p@h/db", "the scheme must be postgres"],
    ["postgres://u:hunter2@db.internal:5432", "no database name"],
    ["postgres://u:hunter2@db.internal/a/b", "no database name"],
    ["postgres:///ragd", "no host"],
    ["db.internal/ragd", "not a URL"],
  ])("refuses %s (%s) without showing the password", (raw, why) => {
    const message = refusal(() => postgresUrl(raw, "RAGD_DATABASE_URL"));
    expect(message).toContain("RAGD_DATABASE_URL");
    expect(message).toContain(why);
    expect(message).not.toContain("hunter2");
  });

  test("redactPassword hides only the password", () => {
    expect(redactPassword("postgres://ragd:s3cr@t!@h:5432/db")).toBe("postgres://ragd:***@h:5432/db");
    expect(redactPassword("postgres://ragd@h/db")).toBe("postgres://ragd@h/db");
    expect(redactPassword("postgres://ragd@h/db?sslmode=require&password=s3cr%40t&x=1")).toBe(
      "postgres://ragd@h/db?sslmode=require&password=***&x=1",
    );
  });
});

describe("s3Location", () => {
  test.each([
    ["s3://ragd-data", { bucket: "ragd-data", prefix: "" }],
    ["s3://ragd-data/", { bucket: "ragd-data", prefix: "" }],
    ["s3://ragd.data/prod/eu/", { bucket: "ragd.data", prefix: "prod/eu" }],
    ["s3://abc/a", { bucket: "abc", prefix: "a" }],
  ])("reads %s", (raw, want) => {
    expect(s3Location(raw, "RAGD_STORAGE_URL")).toEqual(want);
  });

  test.each([
    ["https://ragd-data.s3.amazonaws.com/x", "the scheme must be s3"],
    ["s3://", "not a valid bucket name"],
    ["s3://ab", "not a valid bucket name"],
    ["s3://Ragd-Data", "not a valid bucket name"],
    ["s3://-ragd", "not a valid bucket name"],
    ["s3://ragd..data", "not a valid bucket name"],
    ["s3://192.168.1.10", "not a valid bucket name"],
    [`s3://${"a".repeat(64)}`, "not a valid bucket name"],
    ["s3://key:hunter2@ragd-data/p", "access keys go in their own settings"],
    ["s3://ragd-data/a//b", 'bad prefix segment ""'],
    ["s3://ragd-data/a/../b", 'bad prefix segment ".."'],
    ["s3://ragd-data/a\\b", "bad prefix segment"],
    ["s3://ragd-data/a\tb", "bad prefix segment"],
    ["s3://ragd-data/p?versionId=1", "no query or fragment"],
  ])("refuses %s", (raw, why) => {
    const message = refusal(() => s3Location(raw, "RAGD_STORAGE_URL"));
    expect(message).toContain("RAGD_STORAGE_URL");
    expect(message).toContain(why);
    expect(message).not.toContain("hunter2");
  });
});

describe("the settings in the configuration", () => {
  const full = {
    RAGD_DATABASE_URL: "postgres://ragd:hunter2@db.internal:5432/ragd",
    RAGD_STORAGE_URL: "s3://ragd-data/prod/",
    RAGD_S3_ENDPOINT: "https://objects.internal:9000/",
    RAGD_S3_REGION: "eu-central-1",
    RAGD_S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
    RAGD_S3_SECRET_ACCESS_KEY: "secret",
  };

  test("are read in their normal form, and unset by default", () => {
    expect(loadConfig({}, full).config).toMatchObject({
      databaseUrl: full.RAGD_DATABASE_URL,
      storage: { bucket: "ragd-data", prefix: "prod" },
      s3Endpoint: "https://objects.internal:9000",
      s3Region: "eu-central-1",
      s3AccessKeyId: "AKIAEXAMPLE",
      s3SecretAccessKey: "secret",
    });
    expect(loadConfig({}, {}).config).toMatchObject({ databaseUrl: null, storage: null, s3Endpoint: null });
  });

  test("let serve run on PostgreSQL, and refuse it to the commands that copy the data directory, the password hidden", () => {
    const { config } = loadConfig({}, { RAGD_DATABASE_URL: full.RAGD_DATABASE_URL });
    expect(() => requireServableStorage(config)).not.toThrow();
    for (const command of ["backup", "restore", "export", "import"]) {
      const message = refusal(() => requireLocalStorage(config, command));
      expect(message).toContain(
        "works on a data directory alone, and RAGD_DATABASE_URL (or --database-url) is postgres://ragd:***@db.internal",
      );
      expect(message).not.toContain("hunter2");
    }
    const inQuery = loadConfig({}, { RAGD_DATABASE_URL: "postgres://ragd@db/ragd?password=hunter2" }).config;
    expect(refusal(() => requireLocalStorage(inQuery, "backup"))).toContain("postgres://ragd@db/ragd?password=***:");
    expect(() => requireLocalStorage(loadConfig({}, {}).config, "backup")).not.toThrow();
  });

  test("let serve run on object storage with keys, and refuse it to the commands that copy the data directory", () => {
    const { RAGD_DATABASE_URL: _, ...bucket } = full;
    const { config } = loadConfig({}, bucket);
    expect(() => requireServableStorage(config)).not.toThrow();
    const keyless = loadConfig({}, { RAGD_STORAGE_URL: "s3://ragd-data/prod" }).config;
    expect(refusal(() => requireServableStorage(keyless))).toContain(
      "RAGD_STORAGE_URL (s3://ragd-data/prod) needs RAGD_S3_ACCESS_KEY_ID and RAGD_S3_SECRET_ACCESS_KEY",
    );
    for (const command of ["backup", "restore", "export", "import"])
      expect(refusal(() => requireLocalStorage(config, command))).toContain(
        `ragd ${command} works on a data directory alone, and RAGD_STORAGE_URL (or --storage-url) is s3://ragd-data/prod`,
      );
    expect(refusal(() => loadConfig({}, { ...bucket, RAGD_BACKUP_DIR: "/tmp/b" }))).toContain(
      "RAGD_BACKUP_DIR: scheduled backups copy the data directory",
    );
  });

  test("give the object store's client settings, and LanceDB's options", () => {
    const store = objectStorage(loadConfig({}, full).config)!;
    expect(store).toEqual({
      bucket: "ragd-data",
      prefix: "prod",
      endpoint: "https://objects.internal:9000",
      region: "eu-central-1",
      accessKeyId: "AKIAEXAMPLE",
      secretAccessKey: "secret",
    });
    expect(storageKey(store, "lance")).toBe("prod/lance");
    expect(lanceUri(store)).toBe("s3://ragd-data/prod/lance");
    expect(s3Options(store)).toEqual({
      aws_region: "eu-central-1",
      aws_endpoint: "https://objects.internal:9000",
      aws_access_key_id: "AKIAEXAMPLE",
      aws_secret_access_key: "secret",
    });
    // A plain-http endpoint must be allowed in so many words; no endpoint or keys: AWS S3's defaults.
    const local = objectStorage(loadConfig({}, { ...full, RAGD_S3_ENDPOINT: "http://127.0.0.1:7480" }).config)!;
    expect(s3Options(local)).toMatchObject({ aws_endpoint: "http://127.0.0.1:7480", allow_http: "true" });
    const aws = objectStorage(loadConfig({}, { RAGD_STORAGE_URL: "s3://ragd-data" }).config)!;
    expect(aws).toMatchObject({ prefix: "", endpoint: null, region: "us-east-1", accessKeyId: null });
    expect(storageKey(aws, "lance")).toBe("lance");
    expect(s3Options(aws)).toEqual({ aws_region: "us-east-1" });
    expect(objectStorage(loadConfig({}, {}).config)).toBeNull();
  });

  test.each([
    [{ RAGD_S3_REGION: "us-east-1" }, "RAGD_S3_REGION applies only with RAGD_STORAGE_URL"],
    [{ RAGD_STORAGE_URL: "s3://ragd-data", RAGD_S3_SECRET_ACCESS_KEY: "x" }, "must be set together"],
    [{ RAGD_STORAGE_URL: "s3://ragd-data", RAGD_S3_REGION: "us east" }, "RAGD_S3_REGION must be a region name"],
  ])("%o is refused: %s", (env, why) => {
    expect(refusal(() => loadConfig({}, env))).toContain(why);
  });
});
