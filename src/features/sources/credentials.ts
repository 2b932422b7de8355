/**
 * Setting a connected source's credentials again (docs/API.md, PATCH of a source): an s3
 * source's keys, a Git source's user name, password or token. Checked by the rules of
 * creation, stored apart as at creation (the url_credentials column only the fetcher
 * reads), never shown; the next sync uses them.
 */
import { type BucketInput, readBucketCredentials, storedCredentials } from "../../core/bucket-settings";
import type { Problem } from "../../core/fetch-settings";
import { type GitInput, readGitCredentials } from "../../core/git-settings";
import type { DocumentRow } from "../../db/schema";
import { AppError } from "../../http/errors";
import { refuseBucketFields } from "./bucket";
import { refuseGitFields } from "./git";

export type CredentialsInput = Pick<BucketInput, "accessKeyId" | "secretAccessKey"> &
  Pick<GitInput, "username" | "password" | "token">;

const BUCKET_KEYS = ["accessKeyId", "secretAccessKey"] as const;
const GIT_KEYS = ["username", "password", "token"] as const;

function refuse(problems: Problem[]): never {
  throw new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems.slice(0, 20));
}

/**
 * The stored form of the credentials a PATCH body sets on `doc`; undefined when it sets
 * none. 400 for them on a source of another type, or when they break creation's rules.
 */
export function patchedCredentials(doc: Pick<DocumentRow, "type">, b: CredentialsInput): string | undefined {
  const given = [...BUCKET_KEYS, ...GIT_KEYS].some((f) => b[f] !== undefined);
  if (!given) return undefined;
  refuseBucketFields({ ...b, type: doc.type });
  refuseGitFields({ ...b, type: doc.type });
  if (doc.type === "s3") {
    const keys = readBucketCredentials(b);
    if (Array.isArray(keys)) refuse(keys);
    return storedCredentials(keys);
  }
  const credentials = readGitCredentials(b);
  if (Array.isArray(credentials)) refuse(credentials);
  return credentials;
}
