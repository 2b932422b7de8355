/**
 * Uploads with progress. fetch() cannot report upload progress, XMLHttpRequest
 * can, so file bytes go through here.
 */
import { t } from "../i18n";
import { ApiError, askedAgainWhileBusy, BusyError, busyWaitMs, errorFromBody, networkError } from "./client";

export interface UploadProgress {
  loaded: number;
  total: number;
}

interface UploadOptions {
  method: "PUT" | "POST";
  url: string;
  body: Blob | FormData;
  contentType?: string;
  onProgress: (p: UploadProgress) => void;
  /** Aborts the upload when signalled. */
  signal?: AbortSignal;
}

/** Sends a body with XMLHttpRequest, reporting progress; resolves with the JSON answer. A busy answer is asked again. */
export function uploadWithProgress<T>(o: UploadOptions): Promise<T> {
  return askedAgainWhileBusy(() => uploadOnce<T>(o));
}

function uploadOnce<T>(o: UploadOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(o.method, o.url);
    xhr.setRequestHeader("accept", "application/json");
    if (o.contentType) xhr.setRequestHeader("content-type", o.contentType);
    xhr.upload.onprogress = (e) => o.onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0 });
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve((xhr.responseText ? JSON.parse(xhr.responseText) : undefined) as T);
        } catch {
          resolve(undefined as T);
        }
      } else {
        const err = errorFromBody(xhr.status, xhr.responseText);
        const wait = busyWaitMs(xhr.status, xhr.getResponseHeader("retry-after"));
        reject(wait === null ? err : new BusyError(wait, err));
      }
    };
    xhr.onerror = () => reject(networkError());
    xhr.onabort = () => reject(new ApiError(0, "aborted", t("upload.cancelled")));
    o.signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(o.body);
  });
}

/** ragd's own upload route, as signUploadUrl makes it: /uploads/<source id>?…&sig=… */
const OWN_UPLOAD = /^\/uploads\/[0-9a-f-]{36}$/;

/**
 * Where the page PUTs a file source's bytes. ragd's own upload URL is made same-origin:
 * ragd signs it with RAGD_PUBLIC_URL, which may name the host differently from the
 * address in the browser (127.0.0.1 versus localhost); the signature covers path and
 * query, and the page's CSP allows only its own origin, so the bytes go to this origin
 * with the signed path. A presigned PUT to the object store (RAGD_STORAGE_URL) goes
 * where it points: the CSP allows the store's origin, and the bucket's CORS rules must
 * allow the PUT (docs/operations.md, Object storage).
 */
export function uploadTarget(uploadUrl: string, base: string = location.href): string {
  const u = new URL(uploadUrl, base);
  return OWN_UPLOAD.test(u.pathname) && u.searchParams.has("sig") ? `${u.pathname}${u.search}` : u.href;
}
