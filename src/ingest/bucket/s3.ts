/**
 * A bucket source's requests to its store: ListObjectsV2 pages and object reads, signed
 * as presigned URLs (files/presign.ts, as the replicas' own bucket is) and sent through
 * the guarded fetcher (fetch/index.ts), so that the fetch rules hold for the endpoint at
 * every connection: its host is resolved, each address checked, and the checked address
 * connected to. An error says what went wrong in one sentence, never the signed URL (it
 * names the access key).
 */
import type { ObjectStorage } from "../../config-storage";
import { presignUrl } from "../../files/presign";
import { FetchError, safeFetch } from "../fetch/index";
import { BucketError, type BucketPlace } from "./types";

/** The fetch rules and the time each request has. */
export interface Reach {
  allow: string[];
  deny: string[];
  timeoutMs: number;
}

/** Each request is signed just before it is sent. */
const GRANT_S = 900;
/** A page of 1,000 keys is some 300 KB of XML: far more is not a listing. */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
const PAGE_KEYS = 1000;

/** One object as a listing names it; `path` is relative to the source's prefix. */
export interface ListedObject {
  path: string;
  size: number;
  etag: string;
  modifiedAt: string;
}

export interface ListedPage {
  objects: ListedObject[];
  /** The token of the next page; null after the last. */
  next: string | null;
}

function storeOf(p: BucketPlace): ObjectStorage {
  const s = p.settings;
  return {
    bucket: s.bucket,
    prefix: "",
    endpoint: s.endpoint,
    region: s.region,
    accessKeyId: p.credentials.accessKeyId,
    secretAccessKey: p.credentials.secretAccessKey,
    virtualHosted: !s.pathStyle,
  };
}

/** A signed GET under the fetch rules; `what` names the request in an error. */
async function signedGet(
  p: BucketPlace,
  key: string,
  query: Record<string, string>,
  reach: Reach,
  maxBytes: number,
  what: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const url = presignUrl(storeOf(p), { method: "GET", key, expiresInS: GRANT_S, query });
  try {
    const res = await safeFetch(url, { ...reach, maxBytes, signal, accept: "*/*" });
    return res.bytes;
  } catch (err) {
    throw bucketError(err, p, what);
  }
}

/** The error of a request, as a sentence without the signed URL. */
function bucketError(err: unknown, p: BucketPlace, what: string): BucketError {
  const where = `the bucket ${p.settings.bucket} at ${p.settings.endpoint}`;
  if (!(err instanceof FetchError)) return new BucketError(`${what} failed: ${scrub(String(err))}`, true);
  if (err.status === 403 || err.status === 401)
    return new BucketError(`${where} refused the source's keys (${err.status}) when ${what}`);
  if (err.status === 404)
    return new BucketError(
      `${where} has no ${what.startsWith("listing") ? "such bucket" : "such object"} (404) when ${what}`,
    );
  if (err.status !== null) return new BucketError(`${where} answered ${err.status} when ${what}`, err.transient);
  if (/larger than the \d+-byte limit/.test(err.message))
    return new BucketError(`${what}: larger than the source allows`);
  if (/refused by the fetch rules/.test(err.message))
    return new BucketError(`${where} cannot be reached: ${err.message}`);
  // The system's error code says it in a word ("ECONNREFUSED"); the message would repeat the URL.
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  const why = typeof code === "string" ? code : scrub(err.message);
  return new BucketError(`${where} cannot be reached when ${what} (${why})`, err.transient);
}

/** A message with every URL's query (signature and key id) cut off. */
function scrub(message: string): string {
  return message.replace(/(https?:\/\/[^\s?]*)\?\S*/g, "$1");
}

/**
 * One page of the objects under the source's prefix (ListObjectsV2), from `token`. Keys
 * that end in "/" are folder markers, not objects: they are left out.
 */
export async function listPage(
  p: BucketPlace,
  token: string | null,
  reach: Reach,
  signal?: AbortSignal,
): Promise<ListedPage> {
  const query: Record<string, string> = { "list-type": "2", "max-keys": String(PAGE_KEYS), prefix: p.settings.prefix };
  if (token) query["continuation-token"] = token;
  const bytes = await signedGet(p, "", query, reach, MAX_PAGE_BYTES, "listing its objects", signal);
  const root = parseXml(new TextDecoder().decode(bytes));
  if (root?.tagName !== "ListBucketResult")
    throw new BucketError(`the bucket ${p.settings.bucket} answered its listing with no list`);
  const objects: ListedObject[] = [];
  for (const c of root.getElementsByTagName("Contents")) {
    const key = tag(c, "Key");
    if (key === null || !key.startsWith(p.settings.prefix) || key.endsWith("/")) continue;
    objects.push({
      path: key.slice(p.settings.prefix.length),
      size: Number(tag(c, "Size") ?? 0),
      etag: (tag(c, "ETag") ?? "").replace(/"/g, ""),
      modifiedAt: new Date(tag(c, "LastModified") ?? 0).toISOString(),
    });
  }
  const truncated = tag(root, "IsTruncated") === "true";
  const next = truncated ? tag(root, "NextContinuationToken") : null;
  if (truncated && !next)
    throw new BucketError(`the bucket ${p.settings.bucket} gave a partial listing with no way on`);
  return { objects, next };
}

/** The bytes of the object at `path` (relative to the prefix), at most `maxBytes`. */
export function readObject(p: BucketPlace, path: string, reach: Reach, maxBytes: number): Promise<Uint8Array> {
  return signedGet(p, `${p.settings.prefix}${path}`, {}, reach, maxBytes, `reading ${path}`);
}

/**
 * The root element of an S3 answer (linkedom, as s3-multipart.ts reads them; entities
 * decoded), or null. Required on first use: only a bucket source reads these.
 */
function parseXml(xml: string): Element | null {
  const { DOMParser } = require("linkedom") as typeof import("linkedom");
  return new DOMParser().parseFromString(xml, "text/xml").documentElement as unknown as Element | null;
}

/** The text of the first `name` element under `el`. */
function tag(el: Element, name: string): string | null {
  return el.getElementsByTagName(name)[0]?.textContent ?? null;
}
