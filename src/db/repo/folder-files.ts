/** Named queries on a folder source's files (docs/API.md, "Folder sources"). */
import { eq } from "drizzle-orm";
import type { Db } from "../client";
import { tables } from "../dialect";

/** A file of a folder source as its next sync sees it. */
export interface FolderFile {
  documentId: string;
  /** The file's path relative to the folder. */
  path: string;
  contentHash: string | null;
  /** The document's metadata as stored (JSON): its size and modifiedAt spare a sync the hashing. */
  metadata: string;
}

/** The files a folder source holds now. */
export async function folderFilesOf(db: Db, folderSourceId: string): Promise<FolderFile[]> {
  const { documents, sourceFetches } = tables(db);
  const rows = await db
    .select({
      documentId: documents.id,
      path: documents.externalId,
      contentHash: documents.contentHash,
      metadata: documents.metadata,
    })
    .from(sourceFetches)
    .innerJoin(documents, eq(documents.id, sourceFetches.documentId))
    .where(eq(sourceFetches.crawlSourceId, folderSourceId));
  return rows.map((r) => ({ ...r, path: r.path ?? "" }));
}
