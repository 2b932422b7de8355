/**
 * Multipart uploads nobody will finish. A process killed in the middle of storing a
 * file leaves its parts in the bucket, unseen by listings and billed all the same,
 * until someone aborts the upload (S3 keeps them forever unless a lifecycle rule says
 * otherwise). `ragd serve` runs it hourly on its bucket (services.ts).
 */
import type { ObjectStorage } from "../config-storage";
import { storageKey } from "../config-storage";
import { abortUpload, listUploads } from "./s3-multipart";
import { UPLOAD_TTL_MS } from "./signing";

/**
 * Only ragd's own file areas: LanceDB makes multipart uploads under the same prefix
 * (large data files), and one of those running long must not be cut.
 */
const AREAS = ["files/", "uploads/"];

/**
 * Age past which an upload is abandoned: an upload grant's lifetime, and an hour for a
 * slow upload streamed through ragd itself.
 */
export const STALE_UPLOAD_MS = UPLOAD_TTL_MS + 3600_000;

/** Aborts the uploads under ragd's file areas started more than `maxAgeMs` before `now`; how many. */
export async function abortStaleUploads(
  storage: ObjectStorage,
  opts: { now?: number; maxAgeMs?: number } = {},
): Promise<number> {
  const cutoff = (opts.now ?? Date.now()) - (opts.maxAgeMs ?? STALE_UPLOAD_MS);
  let aborted = 0;
  for (const area of AREAS) {
    for (const u of await listUploads(storage, storageKey(storage, area))) {
      if (u.initiated.getTime() >= cutoff) continue;
      await abortUpload(storage, u.key, u.uploadId);
      aborted++;
    }
  }
  return aborted;
}
