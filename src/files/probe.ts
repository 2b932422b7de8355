/**
 * Whether the object store answers: a signed listing of ragd's prefix (one key at most),
 * within a time limit. /readyz asks it; a store that does not answer is named, with why.
 */
import { type ObjectStorage, storageKey } from "../config-storage";
import { presignUrl } from "./presign";

/** Null when the store answered the listing; otherwise what went wrong, naming the store. */
export async function storeFails(storage: ObjectStorage, timeoutMs: number): Promise<string | null> {
  const query = { "list-type": "2", "max-keys": "1", prefix: storageKey(storage, "") };
  const url = presignUrl(storage, { method: "GET", key: "", query, expiresInS: 60 });
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    if (res.ok) return null;
    return `s3://${storage.bucket} answered ${res.status} to a listing`;
  } catch (err) {
    const why = (err as Error).name === "TimeoutError" ? `no answer in ${timeoutMs / 1000} s` : "unreachable";
    return `s3://${storage.bucket} at ${storage.endpoint ?? "AWS S3"}: ${why}`;
  }
}
