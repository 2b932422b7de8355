/** What a bucket source's sync job is given, and what its objects' jobs read (docs/API.md, "Bucket sources"). */
import type { BucketCredentials, BucketSettings } from "../../core/bucket-settings";

/** Where a bucket source's requests go and how they are signed. */
export interface BucketPlace {
  settings: BucketSettings;
  credentials: BucketCredentials;
}

export interface BucketJob extends BucketPlace {
  /** The time the whole listing may take (a crawl's budget): past it the sync fails, deleting nothing. */
  budgetMs: number;
  /** A re-index rebuilds the objects from the bucket by tasks of their own: nothing is listed. */
  skip?: boolean;
}

/** One object of a bucket source, read by its own task. */
export interface BucketObjectRef extends BucketPlace {
  /** The key relative to the source's prefix (the document's external id). */
  path: string;
}

/** A listing or an object read that cannot go on: its message is the source's error, one sentence with no secret. */
export class BucketError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}
