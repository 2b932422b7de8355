/**
 * The bucket parts of a claimed task's job (tasks/job-for.ts): a bucket source's sync, with
 * where it lists and the keys it signs with; an object of one, with where it is read.
 */
import { type BucketSettings, parseCredentials } from "../../core/bucket-settings";
import type { Db } from "../../db/client";
import { findDocumentById } from "../../db/repo/documents";
import { findSourceFetch } from "../../db/repo/source-fetches";
import type { DocumentRow, SourceFetch } from "../../db/schema";
import type { BucketJob, BucketObjectRef, BucketPlace } from "./types";

/** A bucket source's settings and keys; null when the row is not a bucket source's. */
function placeOf(
  doc: Pick<DocumentRow, "type" | "urlCredentials">,
  state: SourceFetch | undefined,
): BucketPlace | null {
  const credentials = parseCredentials(doc.urlCredentials);
  if (doc.type !== "s3" || !state?.crawl || !credentials) return null;
  return { settings: JSON.parse(state.crawl) as BucketSettings, credentials };
}

/** A bucket source's sync job; `settled` false (a re-index) skips the listing. */
export function bucketJob(
  doc: DocumentRow,
  state: SourceFetch | undefined,
  settled: boolean,
  budgetMs: number,
): BucketJob | null {
  const place = placeOf(doc, state);
  if (!place) return null;
  return settled ? { ...place, budgetMs } : { ...place, budgetMs, skip: true };
}

/** Where an object of a bucket source (`state` its link to the source) is read; null when it is no bucket's. */
export async function bucketObjectOf(
  db: Db,
  externalId: string | null,
  state: SourceFetch | undefined,
): Promise<BucketObjectRef | null> {
  if (!state?.crawlSourceId || externalId === null) return null;
  const parent = await findDocumentById(db, state.crawlSourceId);
  if (parent?.type !== "s3") return null;
  const place = placeOf(parent, await findSourceFetch(db, parent.id));
  return place && { ...place, path: externalId };
}
