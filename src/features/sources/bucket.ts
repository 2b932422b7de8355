/**
 * The settings of a bucket source as the sources API takes them (docs/API.md, "Bucket
 * sources"): checked on create, the endpoint against the fetch rules when its host is an
 * address (a name is resolved and checked at every connection, bucket/s3.ts).
 */
import {
  type BucketCredentials,
  type BucketInput,
  type BucketSettings,
  readBucketSettings,
} from "../../core/bucket-settings";
import { AppError } from "../../http/errors";
import { literalAddressProblem } from "../../ingest/fetch";

const BUCKET_FIELDS = [
  "endpoint",
  "bucket",
  "prefix",
  "region",
  "pathStyle",
  "accessKeyId",
  "secretAccessKey",
] as const;

/** The bucket settings and keys of a create body; 400 naming the problem. */
export function checkBucketSettings(
  b: BucketInput,
  rules: { fetchAllow: string[]; fetchDeny: string[] },
): { settings: BucketSettings; credentials: BucketCredentials } {
  const read = readBucketSettings(b);
  const problems = Array.isArray(read) ? read : [];
  const refused = Array.isArray(read) ? null : literalAddressProblem(read.settings.endpoint, rules);
  if (refused) problems.push({ field: "endpoint", message: refused });
  if (!problems.length && !Array.isArray(read)) return read;
  throw new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems.slice(0, 20));
}

/** 400 for the bucket fields on a source of another type. */
export function refuseBucketFields(b: BucketInput & { type: string }): void {
  if (b.type === "s3") return;
  for (const field of BUCKET_FIELDS)
    if (b[field] !== undefined)
      throw new AppError("invalid_request", `${field}: is for s3 sources`, [{ field, message: "is for s3 sources" }]);
}
