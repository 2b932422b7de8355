/**
 * Requests to the object store signed in the `Authorization` header (AWS Signature
 * Version 4, header form), for a client that sends them itself: the bucket cache
 * (vectors/bucket-cache.ts) re-signs with the configured keys what LanceDB asked of it.
 * The payload is not hashed here: the caller gives its hash, or UNSIGNED-PAYLOAD.
 */
import type { ObjectStorage } from "../config-storage";
import { amzStamp, canonicalQuery, canonicalRequest, objectUrl, signSigV4 } from "./presign";

export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

export interface SignedRequestInput {
  method: string;
  /** The object's full key (prefix included); "" addresses the bucket itself. */
  key: string;
  query: Record<string, string>;
  /** Headers sent with the request; names in any case. Every one is signed. */
  headers: Record<string, string>;
  /** The SHA-256 (hex) of the body, or UNSIGNED-PAYLOAD. */
  payloadHash: string;
  now?: Date;
}

/** The URL to send the request to, and its headers with `host`, `x-amz-date`, the payload hash and `authorization`. */
export function signRequest(store: ObjectStorage, req: SignedRequestInput): { url: string; headers: Headers } {
  const { accessKeyId, secretAccessKey, region } = store;
  if (accessKeyId === null || secretAccessKey === null) throw new Error("signing needs the store's access key");
  const url = objectUrl(store, req.key);
  const stamp = amzStamp(req.now ?? new Date());
  const signed = new Map<string, string>();
  for (const [name, value] of Object.entries(req.headers)) signed.set(name.toLowerCase(), value.trim());
  signed.set("host", url.host);
  signed.set("x-amz-date", stamp);
  signed.set("x-amz-content-sha256", req.payloadHash);
  const query = canonicalQuery(req.query);
  const { canonical, signedHeaders } = canonicalRequest(req.method, url.pathname, query, signed, req.payloadHash);
  const signature = signSigV4(secretAccessKey, region, stamp, canonical);
  const scope = `${stamp.slice(0, 8)}/${region}/s3/aws4_request`;
  const headers = new Headers();
  for (const [name, value] of signed) if (name !== "host") headers.set(name, value);
  headers.set(
    "authorization",
    `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  );
  return { url: `${url.origin}${url.pathname}${query ? `?${query}` : ""}`, headers };
}
