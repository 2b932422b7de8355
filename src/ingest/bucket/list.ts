/**
 * A bucket source's sync, as a worker runs it: lists the objects under its prefix page by
 * page (ListObjectsV2 continuation) and reports them as a folder's walk is reported
 * (folder/types.ts, FolderScan), each object's ETag standing for its hash. What to add,
 * change and delete is decided by the main thread, by the same step as a folder's
 * (sync/folder-sync.ts). A listing that fails or runs past its bounds fails the whole sync:
 * nothing is deleted.
 */
import { wanted } from "../../tools/folder-walk";
import type { FolderScan } from "../folder/types";
import type { JobEvent } from "../job-types";
import { type ListedPage, listPage, type Reach } from "./s3";
import { BucketError, type BucketJob } from "./types";

/** Objects one source may hold: past this the listing stops, and the sync fails, deleting nothing. */
export const MAX_BUCKET_OBJECTS = 100_000;

/** Lists the bucket of `job` within its time, then reports it; a BucketError when the listing itself fails. */
export async function runBucketList(
  jobId: string,
  job: BucketJob,
  reach: Reach,
  emit: (e: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  if (job.skip) return emit({ type: "folder-scanned", jobId, scan: null });
  const { settings } = job;
  const rules = {
    include: settings.include.map((p) => new Bun.Glob(p)),
    exclude: settings.exclude.map((p) => new Bun.Glob(p)),
  };
  const maxBytes = settings.maxFileMb * 1024 * 1024;
  const scan: FolderScan = { files: [], failures: [], unlisted: [] };
  const budgetMs = job.budgetMs;
  const deadline = Date.now() + budgetMs;
  let token: string | null = null;
  let seen = 0;
  do {
    if (signal.aborted) return;
    if (Date.now() > deadline)
      throw new BucketError(
        `the listing of ${settings.bucket} took longer than ${budgetMs / 1000} s; nothing was deleted`,
      );
    const page: ListedPage = await listPage(job, token, reach, signal).catch((err: unknown) => {
      throw err instanceof BucketError ? new BucketError(`${err.message}; nothing was deleted`) : err;
    });
    seen += page.objects.length;
    if (seen > MAX_BUCKET_OBJECTS)
      throw new BucketError(
        `more than ${MAX_BUCKET_OBJECTS} objects under the prefix; narrow it (prefix, include); nothing was deleted`,
      );
    for (const o of page.objects) {
      if (!wanted(o.path, rules)) continue;
      if (o.size > maxBytes) {
        scan.failures.push({ path: o.path, reason: `larger than ${settings.maxFileMb} MB` });
        continue;
      }
      // A store that gives no ETag: the size and time stand for it.
      const hash = o.etag || `${o.size}:${o.modifiedAt}`;
      scan.files.push({ path: o.path, size: o.size, modifiedAt: o.modifiedAt, hash, etag: o.etag });
    }
    token = page.next;
  } while (token);
  emit({ type: "folder-scanned", jobId, scan });
}
