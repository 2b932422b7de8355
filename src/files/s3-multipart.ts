/**
 * S3 multipart uploads through presigned requests (presign.ts). Bun's S3Client streams
 * a multipart upload through its writer, but has no way to abandon one: `end(error)`
 * completes the upload and keeps the object (seen on Ceph RGW). An upload that goes past
 * its limit must keep nothing, so the upload's steps are made here: create, parts,
 * complete, abort; and the listing of uploads never completed, for their cleanup.
 */
import type { ObjectStorage } from "../config-storage";
import { presignUrl } from "./presign";

/** Each request is signed just before it is sent: a short grant is enough. */
const GRANT_S = 900;

async function call(
  store: ObjectStorage,
  method: "GET" | "PUT" | "DELETE" | "POST",
  key: string,
  query: Record<string, string>,
  body?: Uint8Array | string,
): Promise<Response> {
  const signed = presignUrl(store, { method, key, expiresInS: GRANT_S, query });
  // A Uint8Array is a body; the DOM typings disagree only about its ArrayBufferLike.
  const res = await fetch(signed, { method, body: body as BodyInit | undefined });
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    throw new Error(`the object store answered ${res.status} to ${method} ${key}: ${errorCode(text)}`);
  }
  return res;
}

/** Starts an upload of `key`; its id. */
export async function createUpload(store: ObjectStorage, key: string): Promise<string> {
  const xml = parse(await (await call(store, "POST", key, { uploads: "" })).text());
  const id = tag(xml, "UploadId");
  if (!id) throw new Error(`the object store started no upload of ${key}`);
  return id;
}

/** Sends part `n` (from 1) of an upload; its ETag, which completing the upload names. */
export async function uploadPart(
  store: ObjectStorage,
  key: string,
  uploadId: string,
  n: number,
  bytes: Uint8Array,
): Promise<string> {
  const res = await call(store, "PUT", key, { partNumber: String(n), uploadId }, bytes);
  await res.arrayBuffer();
  const etag = res.headers.get("etag");
  if (!etag) throw new Error(`the object store gave part ${n} of ${key} no ETag`);
  return etag;
}

/** Joins the parts into the object. */
export async function completeUpload(
  store: ObjectStorage,
  key: string,
  uploadId: string,
  etags: string[],
): Promise<void> {
  const parts = etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(e)}</ETag></Part>`);
  const body = `<CompleteMultipartUpload>${parts.join("")}</CompleteMultipartUpload>`;
  const text = await (await call(store, "POST", key, { uploadId }, body)).text();
  // S3 may answer 200 and still fail, with an <Error> in the body.
  if (parse(text)?.tagName === "Error") throw new Error(`the object store did not complete ${key}: ${errorCode(text)}`);
}

/** Abandons an upload: its parts are deleted and no object appears. */
export async function abortUpload(store: ObjectStorage, key: string, uploadId: string): Promise<void> {
  const res = await call(store, "DELETE", key, { uploadId });
  await res.arrayBuffer();
}

export interface PendingUpload {
  key: string;
  uploadId: string;
  initiated: Date;
}

/** Uploads started and neither completed nor aborted, under `prefix` (full keys). */
export async function listUploads(store: ObjectStorage, prefix: string): Promise<PendingUpload[]> {
  const found: PendingUpload[] = [];
  let marker: Record<string, string> = {};
  for (;;) {
    const xml = parse(await (await call(store, "GET", "", { uploads: "", prefix, ...marker })).text());
    for (const u of xml?.getElementsByTagName("Upload") ?? []) {
      const [key, uploadId, initiated] = [tag(u, "Key"), tag(u, "UploadId"), tag(u, "Initiated")];
      if (key && uploadId && initiated) found.push({ key, uploadId, initiated: new Date(initiated) });
    }
    if (tag(xml, "IsTruncated") !== "true") return found;
    marker = {
      "key-marker": tag(xml, "NextKeyMarker") ?? "",
      "upload-id-marker": tag(xml, "NextUploadIdMarker") ?? "",
    };
  }
}

/**
 * The root element of an S3 answer (linkedom, as the document extractors use; entities
 * decoded), or null. linkedom is required here, on first use: only a server on a bucket
 * reads S3 answers, and loading it costs every start about 35 ms and 11 MB.
 */
function parse(xml: string): Element | null {
  const { DOMParser } = require("linkedom") as typeof import("linkedom");
  return new DOMParser().parseFromString(xml, "text/xml").documentElement as unknown as Element | null;
}

/** The text of the first `name` element under `el`. */
function tag(el: Element | null, name: string): string | null {
  return el?.getElementsByTagName(name)[0]?.textContent ?? null;
}

function errorCode(text: string): string {
  return tag(parse(text), "Code") ?? (text.slice(0, 200) || "no details");
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
