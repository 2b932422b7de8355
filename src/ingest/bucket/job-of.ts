/**
 * The bucket parts of a claimed task's job (tasks/job-for.ts): a bucket source's sync, with
 * where it lists and the keys it signs with; an object of one, with where it is read.
 */
import { type BucketSettings, parseCredentials } from "../../core/bucket-settings";
import type { DocumentRow, SourceFetch } from "../../db/schema";
import type { LinkedParent } from "../job-types";
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

/** Where an object of a bucket source is read, `parent` its bucket source as read; null when it cannot be. */
export function bucketObjectOf(externalId: string | null, parent: LinkedParent): BucketObjectRef | null {
  if (externalId === null) return null;
  const place = placeOf(parent.doc, parent.state);
  return place && { ...place, path: externalId };
}
