/**
 * A file of a folder, a bucket or a Git source is read from its parent source (its link
 * in source_fetches): a claim reads that parent once, its row and its settings, and the
 * parent's type says which reads the file (folder/, bucket/, git/job-of.ts).
 */
import type { Db } from "../../db/client";
import { findDocumentById } from "../../db/repo/documents";
import { findSourceFetch } from "../../db/repo/source-fetches";
import type { DocumentRow, SourceFetch } from "../../db/schema";
import { bucketObjectOf } from "../bucket/job-of";
import { folderFileOf } from "../folder/job-of";
import { type GitJobConfig, gitFileOf } from "../git/job-of";
import type { JobDocument } from "../job-types";

/** Where a `file` document linked to a parent source (`state` its own link) is read; all null for any other. */
export async function linkedFileOf(
  db: Db,
  doc: DocumentRow,
  state: SourceFetch | undefined,
  config: GitJobConfig,
): Promise<Pick<JobDocument, "gitFile" | "bucketObject" | "folderFile">> {
  const none = { gitFile: null, bucketObject: null, folderFile: null };
  if (doc.type !== "file" || !state?.crawlSourceId) return none;
  const found = await findDocumentById(db, state.crawlSourceId);
  if (!found) return none;
  const parent = { doc: found, state: await findSourceFetch(db, found.id) };
  if (found.type === "git") return { ...none, gitFile: gitFileOf(doc, parent, config) };
  if (found.type === "s3") return { ...none, bucketObject: bucketObjectOf(doc.externalId, parent) };
  if (found.type === "folder") return { ...none, folderFile: folderFileOf(doc.externalId, parent) };
  return none;
}
