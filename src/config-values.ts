/**
 * How config.ts reads one value: each reader takes the raw text and the setting's
 * name, and throws ConfigError naming both when the value is bad.
 */
import { parseCidr } from "./tools/address";

export class ConfigError extends Error {}

export function int(min: number, max: number) {
  return (raw: string, name: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  };
}

export function oneOf<T extends string>(values: readonly T[]) {
  return (raw: string, name: string): T => {
    if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
    return raw as T;
  };
}

export function url(raw: string, name: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    return raw.replace(/\/+$/, "");
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
}

export const list = (raw: string): string[] =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
export const str = (raw: string): string => raw;

/** IP addresses or CIDRs. */
export function cidrList(raw: string, name: string): string[] {
  const entries = list(raw);
  for (const e of entries) {
    if (!parseCidr(e)) throw new ConfigError(`${name} must be comma-separated IP addresses or CIDRs, got "${e}"`);
  }
  return entries;
}

/** Host names, IP addresses, or ".domain" / "*.domain" for a domain and its subdomains. */
export function hostList(raw: string, name: string): string[] {
  const hosts = list(raw);
  for (const h of hosts) {
    const bare = h.replace(/^\*?\./, "").replace(/^\[|\]$/g, "");
    if (!/^[A-Za-z0-9.-]+$/.test(bare) && !/^[0-9A-Fa-f:.]+$/.test(bare)) {
      throw new ConfigError(`${name} must be comma-separated host names without scheme or port, got "${h}"`);
    }
  }
  return hosts;
}

/** Language data names: `eng`, `chi_sim`, `deu_latf`; each a file `<name>.traineddata`. */
export function languageList(raw: string, name: string): string[] {
  const langs = list(raw.replaceAll("+", ","));
  if (langs.length === 0) throw new ConfigError(`${name} must name at least one language, e.g. "eng"`);
  for (const l of langs)
    if (!/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(l)) throw new ConfigError(`${name} has an invalid language name "${l}"`);
  return [...new Set(langs)];
}

/** A duration: a whole number with s, m, h or d ("30m", "6h", "1d"); at least a minute. */
export function duration(raw: string, name: string): number {
  const m = /^(\d+)([smhd])$/.exec(raw.trim());
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const ms = m ? Number(m[1]) * unit[m[2] as keyof typeof unit] : Number.NaN;
  if (!(ms >= 60_000))
    throw new ConfigError(`${name} must be a duration of at least a minute like 30m, 6h or 1d, got "${raw}"`);
  return ms;
}

/**
 * The interval of periodic work: a whole number with ms, s, m or h ("500ms", "10s", "2m",
 * "1h"), from `minMs` to `maxMs`.
 */
export function interval(minMs: number, maxMs: number) {
  return (raw: string, name: string): number => {
    const m = /^(\d+)(ms|s|m|h)$/.exec(raw.trim());
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
    const ms = m ? Number(m[1]) * unit[m[2] as keyof typeof unit] : Number.NaN;
    if (!(ms >= minMs && ms <= maxMs))
      throw new ConfigError(
        `${name} must be a time like 500ms, 10s, 2m or 1h, from ${minMs} ms to ${maxMs / 1000} s, got "${raw}"`,
      );
    return ms;
  };
}

/**
 * `raw` with the password of a `user:password@` part, and of a `password=` query parameter
 * (PostgreSQL URLs may carry it there), replaced, for error messages and logs.
 */
export function redactPassword(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/]*@/i, "$1***@").replace(/([?&]password=)[^&#]*/gi, "$1***");
}

/**
 * A PostgreSQL connection URL: postgres:// or postgresql://, a host (or a socket directory
 * in ?host=) and a database name. Errors never repeat the password.
 */
export function postgresUrl(raw: string, name: string): string {
  const bad = (why: string) =>
    new ConfigError(
      `${name} must be a URL like postgres://user:password@host:5432/ragd (${why}), got "${redactPassword(raw)}"`,
    );
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw bad("not a URL");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw bad("the scheme must be postgres");
  if (!u.hostname && !u.searchParams.get("host")) throw bad("no host");
  if (!/^\/[^/]+$/.test(u.pathname)) throw bad("no database name");
  return raw.trim();
}

/** Where object storage keeps ragd's data: a bucket and a key prefix ("" or "a/b", no slashes around). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/**
 * `s3://bucket` or `s3://bucket/prefix`. Bucket names follow S3's rules (3–63 lowercase
 * letters, digits, dots and hyphens, a letter or digit at each end, not an IP address);
 * keys belong in their own settings, never in the URL.
 */
export function s3Location(raw: string, name: string): S3Location {
  const m = /^s3:\/\/([^/?#]*)((?:\/[^?#]*)?)$/.exec(raw.trim());
  const bad = (why: string) =>
    new ConfigError(`${name} must look like s3://bucket/prefix (${why}), got "${redactPassword(raw)}"`);
  if (!m) throw bad(raw.trim().startsWith("s3://") ? "no query or fragment" : "the scheme must be s3");
  const [, bucket = "", path = ""] = m;
  if (bucket.includes("@")) throw bad("access keys go in their own settings, not in the URL");
  if (
    !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) ||
    bucket.includes("..") ||
    /^\d+\.\d+\.\d+\.\d+$/.test(bucket)
  )
    throw bad(`"${bucket}" is not a valid bucket name`);
  const segments = path.replace(/^\/+|\/+$/g, "");
  const parts = segments === "" ? [] : segments.split("/");
  for (const p of parts)
    if (p === "" || p === "." || p === ".." || [...p].some((ch) => ch < " " || ch === "\x7f" || ch === "\\"))
      throw bad(`bad prefix segment "${p}"`);
  return { bucket, prefix: parts.join("/") };
}

/** An object store's region name, e.g. us-east-1 (S3-compatible stores may name their own). */
export function s3Region(raw: string, name: string): string {
  const v = raw.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(v))
    throw new ConfigError(`${name} must be a region name like us-east-1, got "${raw}"`);
  return v;
}
