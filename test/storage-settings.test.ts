/**
 * The readers for the settings of running on several machines (PostgreSQL and object
 * storage): good values in their normal form, bad ones refused with the setting's name
 * and without the password.
 */
import { describe, expect, test } from "bun:test";
import { ConfigError, postgresUrl, redactPassword, s3Location } from "../src/config-values";

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
