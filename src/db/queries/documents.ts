/** Named queries on documents (pipeline sources and knowledge-base documents). */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { documents, type DocumentRow } from "../schema";

export function listDocuments(db: Db, collectionId: string): DocumentRow[] {
  return db.select().from(documents).where(eq(documents.collectionId, collectionId)).orderBy(asc(documents.id)).all();
}
