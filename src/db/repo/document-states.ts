/**
 * What start-up reconciliation, a re-index and a settings change read of every document
 * of a collection: its id, status, chunk count and file, or only whether there is one. Reading
 * whole rows (listDocuments) of a pipeline of 1,000,000 sources took 7.8 s and 3 GB of
 * memory before a server on it could listen (bench/ten-million.ts's table).
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { first, tables } from "../dialect";
import type { DocumentRow } from "../schema";

/** A document as reconciliation sees it. */
export type DocumentState = Pick<DocumentRow, "id" | "status" | "chunkCount" | "filePath">;

/** The states of a collection's documents, by id. */
export async function listDocumentStates(db: Db, collectionId: string): Promise<DocumentState[]> {
  const { documents } = tables(db);
  return await db
    .select({
      id: documents.id,
      status: documents.status,
      chunkCount: documents.chunkCount,
      filePath: documents.filePath,
    })
    .from(documents)
    .where(eq(documents.collectionId, collectionId))
    .orderBy(asc(documents.id));
}

/** Whether a collection has a document. */
export async function hasDocuments(db: Db, collectionId: string): Promise<boolean> {
  const { documents } = tables(db);
  const found = await db
    .select({ id: documents.id })
    .from(documents)
    .where(eq(documents.collectionId, collectionId))
    .limit(1);
  return first(found) !== undefined;
}
