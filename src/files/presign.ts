/**
 * Presigned URLs of the object store (AWS Signature Version 4, query form). Bun's own
 * presign signs only the `host` header, so a PUT it grants accepts any size and any type;
 * this one also signs the headers it is given, and a store that checks signed headers
 * (AWS S3, Ceph RGW) then refuses an upload whose `Content-Length` is not the declared one.
 * The content type is not bound: HTTP clients pick their own, and ragd sniffs it anyway.
 */
import { createHash, createHmac } from "node:crypto";
import type { ObjectStorage } from "../config-storage";

/** SigV4 allows at most a week. */
const MAX_EXPIRES_S = 7 * 24 * 3600;

export interface PresignOptions {
  method: "GET" | "PUT" | "HEAD" | "DELETE" | "POST";
  /** The object's full key (prefix included); "" addresses the bucket itself. */
  key: string;
  expiresInS: number;
  /** Headers the client must send with exactly these values (names in any case). */
  headers?: Record<string, string>;
  /** Parameters of the request itself (`uploads`, `uploadId`, `partNumber`, `list-type`), signed with it. */
  query?: Record<string, string>;
  /** The signing time; the grant runs out `expiresInS` after it. */
  now?: Date;
}

/** A URL that lets its holder make one kind of request on one key until it expires. */
export function presignUrl(store: ObjectStorage, opts: PresignOptions): string {
  const { accessKeyId, secretAccessKey, region } = store;
  if (accessKeyId === null || secretAccessKey === null) throw new Error("presigning needs the store's access key");
  if (!Number.isInteger(opts.expiresInS) || opts.expiresInS < 1 || opts.expiresInS > MAX_EXPIRES_S)
    throw new Error(`a presigned URL lasts 1 to ${MAX_EXPIRES_S} s, not ${opts.expiresInS}`);
  const url = objectUrl(store, opts.key);
  const stamp = amzStamp(opts.now ?? new Date());
  const scope = `${stamp.slice(0, 8)}/${region}/s3/aws4_request`;
  const headers = new Map<string, string>([["host", url.host]]);
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers.set(name.toLowerCase(), value.trim());
  const query = canonicalQuery({
    ...opts.query,
    "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
    "X-Amz-Credential": `${accessKeyId}/${scope}`,
    "X-Amz-Date": stamp,
    "X-Amz-Expires": String(opts.expiresInS),
    "X-Amz-SignedHeaders": [...headers.keys()].sort().join(";"),
  });
  const { canonical } = canonicalRequest(opts.method, url.pathname, query, headers, "UNSIGNED-PAYLOAD");
  const signature = signSigV4(secretAccessKey, region, stamp, canonical);
  return `${url.origin}${url.pathname}?${query}&X-Amz-Signature=${signature}`;
}

/** SigV4's time stamp of `now`: yyyymmddThhmmssZ. */
export const amzStamp = (now: Date) => now.toISOString().replace(/[-:]|\.\d{3}/g, "");

/** SigV4's canonical request, every header of `headers` (lower-case names) signed; and their names as it lists them. */
export function canonicalRequest(
  method: string,
  path: string,
  query: string,
  headers: Map<string, string>,
  payloadHash: string,
): { canonical: string; signedHeaders: string } {
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(";");
  const lines = names.map((n) => `${n}:${headers.get(n)}\n`).join("");
  return { canonical: [method, path, query, lines, signedHeaders, payloadHash].join("\n"), signedHeaders };
}

/** The SigV4 signature (hex) of a canonical request at `stamp` (yyyymmddThhmmssZ). */
export function signSigV4(secretAccessKey: string, region: string, stamp: string, canonical: string): string {
  const day = stamp.slice(0, 8);
  const toSign = ["AWS4-HMAC-SHA256", stamp, `${day}/${region}/s3/aws4_request`, sha256Hex(canonical)].join("\n");
  let key: Buffer = hmac(`AWS4${secretAccessKey}`, day);
  for (const part of [region, "s3", "aws4_request"]) key = hmac(key, part);
  return hmac(key, toSign).toString("hex");
}

/**
 * A PUT of exactly `contentLength` bytes to `key`. Stores that ignore signed headers
 * accept any size: whoever hands the URL out must still check the stored object's size.
 */
export function presignPut(
  store: ObjectStorage,
  key: string,
  opts: { contentLength: number; expiresInS: number; now?: Date },
): string {
  if (!Number.isSafeInteger(opts.contentLength) || opts.contentLength < 0)
    throw new Error(`bad content length: ${opts.contentLength}`);
  return presignUrl(store, {
    method: "PUT",
    key,
    expiresInS: opts.expiresInS,
    headers: { "content-length": String(opts.contentLength) },
    now: opts.now,
  });
}

/** The origin every presigned URL of the store has: what a page that uploads to it must be allowed. */
export function storeOrigin(store: ObjectStorage): string {
  return objectUrl(store, "").origin;
}

/** Path-style on a configured endpoint (what S3-compatible stores serve) unless told otherwise; virtual-hosted on AWS. */
export function objectUrl(store: ObjectStorage, key: string): URL {
  const path = key === "" ? "" : `/${key.split("/").map(uriEncode).join("/")}`;
  if (store.endpoint === null) return new URL(`https://${store.bucket}.s3.${store.region}.amazonaws.com${path || "/"}`);
  const base = new URL(store.endpoint);
  if (store.virtualHosted)
    return new URL(`${base.protocol}//${store.bucket}.${base.host}${base.pathname.replace(/\/+$/, "")}${path || "/"}`);
  return new URL(`${base.origin}${base.pathname.replace(/\/+$/, "")}/${store.bucket}${path}`);
}

/** RFC 3986 encoding, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function canonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((k) => `${uriEncode(k)}=${uriEncode(params[k]!)}`)
    .join("&");
}

export function sha256Hex(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}
