/**
 * A bucket source's settings (docs/API.md, "Bucket sources"): which S3-compatible store,
 * bucket and prefix, which of its objects to take, and the size limit per object. The
 * keys are not settings: they are kept apart (BucketCredentials) and never shown.
 */
import type { Problem } from "./fetch-settings";
import { maxFileMb, patterns } from "./folder-settings";

/** S3's own default region, which S3-compatible stores accept whatever they call themselves. */
export const DEFAULT_BUCKET_REGION = "us-east-1";

/** What a bucket source syncs from, as stored beside it (and shown). */
export interface BucketSettings {
  /** The store's http(s) URL, no trailing slash. */
  endpoint: string;
  bucket: string;
  /** "" or a prefix ending in "/": the objects under it are the source's, their keys relative to it. */
  prefix: string;
  region: string;
  /** Requests name the bucket in the path (true, what S3-compatible stores serve) or in the host name. */
  pathStyle: boolean;
  include: string[];
  exclude: string[];
  maxFileMb: number;
}

/** The keys a bucket source signs its requests with: stored apart, read only to sign. */
export interface BucketCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The fields of a create body a bucket source reads. */
export interface BucketInput {
  endpoint?: unknown;
  bucket?: unknown;
  prefix?: unknown;
  region?: unknown;
  pathStyle?: unknown;
  accessKeyId?: unknown;
  secretAccessKey?: unknown;
  include?: unknown;
  exclude?: unknown;
  maxFileMb?: unknown;
}

/** Bucket names S3-compatible stores take (S3's rules, with capitals and underscores that older stores allow). */
const BUCKET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/;
const REGION = /^[a-z0-9-]{1,64}$/;
/** S3 keys are at most 1,024 bytes: a prefix longer than that holds nothing. */
const MAX_PREFIX = 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f]/;

/** The endpoint as stored (origin and path, no trailing slash), or a problem. */
function endpointOf(v: unknown): string | Problem {
  const bad = { field: "endpoint", message: "must be the store's http(s) URL, without credentials, query or fragment" };
  if (typeof v !== "string" || v.length > 2048) return bad;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return bad;
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.username || u.password || u.search || u.hash) return bad;
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}

/** The prefix as stored: no leading "/", and ending in "/" unless empty. */
function prefixOf(v: unknown, problems: Problem[]): string {
  if (v === undefined || v === "") return "";
  if (typeof v !== "string" || v.length > MAX_PREFIX || CONTROL.test(v)) {
    problems.push({ field: "prefix", message: `must be a key prefix of at most ${MAX_PREFIX} characters` });
    return "";
  }
  const p = v.replace(/^\/+/, "");
  return p === "" || p.endsWith("/") ? p : `${p}/`;
}

function text(v: unknown, field: string, problems: Problem[]): string {
  if (typeof v === "string" && v.length > 0 && v.length <= 1024 && !CONTROL.test(v)) return v;
  problems.push({ field, message: "is required for a bucket source (1..1024 characters)" });
  return "";
}

function keysOf(b: BucketInput, problems: Problem[]): BucketCredentials {
  return {
    accessKeyId: text(b.accessKeyId, "accessKeyId", problems),
    secretAccessKey: text(b.secretAccessKey, "secretAccessKey", problems),
  };
}

/**
 * The keys of a body that sets them again (PATCH of a bucket source): both, by the rules
 * of creation; or the problems.
 */
export function readBucketCredentials(b: BucketInput): BucketCredentials | Problem[] {
  const problems: Problem[] = [];
  const credentials = keysOf(b, problems);
  return problems.length ? problems : credentials;
}

/**
 * Checks a bucket source's fields; the settings to store and the keys to keep apart, or
 * the problems (each naming its field). The fetch rules are the caller's: the endpoint
 * is checked against them where the source enters and at every connection.
 * @example readBucketSettings({ endpoint: "http://127.0.0.1:7480", bucket: "docs", accessKeyId: "k", secretAccessKey: "s" })
 */
export function readBucketSettings(
  b: BucketInput,
): { settings: BucketSettings; credentials: BucketCredentials } | Problem[] {
  const problems: Problem[] = [];
  const endpoint = endpointOf(b.endpoint);
  if (typeof endpoint !== "string") problems.push(endpoint);
  if (typeof b.bucket !== "string" || !BUCKET_NAME.test(b.bucket))
    problems.push({ field: "bucket", message: "must be a bucket name (3..255 letters, digits, '.', '_' or '-')" });
  const region = b.region ?? DEFAULT_BUCKET_REGION;
  if (typeof region !== "string" || !REGION.test(region))
    problems.push({ field: "region", message: "must be a region name (lowercase letters, digits and '-')" });
  if (b.pathStyle !== undefined && typeof b.pathStyle !== "boolean")
    problems.push({ field: "pathStyle", message: "must be true or false" });
  const credentials = keysOf(b, problems);
  const settings: BucketSettings = {
    endpoint: typeof endpoint === "string" ? endpoint : "",
    bucket: String(b.bucket),
    prefix: prefixOf(b.prefix, problems),
    region: String(region),
    pathStyle: b.pathStyle !== false,
    include: patterns(b.include, "include", problems),
    exclude: patterns(b.exclude, "exclude", problems),
    maxFileMb: maxFileMb(b.maxFileMb, problems),
  };
  return problems.length ? problems : { settings, credentials };
}

/** The stored form of the keys (the source's url_credentials column, which only the fetcher reads). */
export function storedCredentials(c: BucketCredentials): string {
  return JSON.stringify(c);
}

/** The keys back from their stored form; null when there are none or they are not a bucket's. */
export function parseCredentials(stored: string | null): BucketCredentials | null {
  if (!stored) return null;
  try {
    const c = JSON.parse(stored) as Partial<BucketCredentials>;
    return typeof c.accessKeyId === "string" && typeof c.secretAccessKey === "string"
      ? { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey }
      : null;
  } catch {
    return null;
  }
}
