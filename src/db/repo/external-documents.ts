/**
 * Named queries of the documents API (docs/API.md, Documents API): documents by the
 * client's external id, a page of them, and the text and tasks an upsert replaces.
 */
import { and, asc, count, eq, gt, inArray, ne, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { first, tables } from "../dialect";
import { once, ph } from "../prepared";
import type { DocumentRow } from "../schema";

const byExternalId = (db: Db) => {
  const { documents } = tables(db);
  return db
    .select()
    .from(documents)
    .where(and(eq(documents.collectionId, ph("collectionId")), eq(documents.externalId, ph("externalId"))))
    .prepare();
};

/**
 * The documents a client knows by these external ids in a collection, by external id:
 * a batch reads the stored versions of its items at once (500 ids per query).
 */
export async function documentsByExternalIds(
  db: Db,
  collectionId: string,
  externalIds: string[],
): Promise<Map<string, DocumentRow>> {
  const { documents } = tables(db);
  const out = new Map<string, DocumentRow>();
  for (let i = 0; i < externalIds.length; i += 500) {
    const rows = await db
      .select()
      .from(documents)
      .where(
        and(eq(documents.collectionId, collectionId), inArray(documents.externalId, externalIds.slice(i, i + 500))),
      );
    for (const r of rows) if (r.externalId !== null) out.set(r.externalId, r);
  }
  return out;
}

/** The document a client knows as `externalId` in a collection. */
export async function findDocumentByExternalId(
  db: Db,
  collectionId: string,
  externalId: string,
): Promise<DocumentRow | undefined> {
  return first(await once(db, byExternalId).execute({ collectionId, externalId }));
}

export interface DocumentPageQuery {
  status?: DocumentRow["status"];
  /** Only documents changed after this instant (ISO 8601). */
  updatedSince?: string;
  page: number;
  pageSize: number;
}

/** A page of a collection's documents, oldest change first (so a sync can resume), and the total. */
export async function listDocumentPage(
  db: Db,
  collectionId: string,
  q: DocumentPageQuery,
): Promise<{ rows: DocumentRow[]; total: number }> {
  const { documents } = tables(db);
  const where: SQL[] = [eq(documents.collectionId, collectionId)];
  if (q.status) where.push(eq(documents.status, q.status));
  if (q.updatedSince) where.push(gt(documents.updatedAt, q.updatedSince));
  const cond = and(...where);
  const rows = await db
    .select()
    .from(documents)
    .where(cond)
    .orderBy(asc(documents.updatedAt), asc(documents.id))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const total = first(await db.select({ n: count() }).from(documents).where(cond))?.n ?? 0;
  return { rows, total };
}

/** Sets (or, with null, removes) a document's stored text. */
export async function replaceDocumentText(db: Db, documentId: string, content: string | null): Promise<void> {
  const { documentTexts } = tables(db);
  await db.delete(documentTexts).where(eq(documentTexts.documentId, documentId));
  if (content !== null) await db.insert(documentTexts).values({ documentId, content });
}

/** Removes a document's waiting and running tasks: a newer version supersedes them. */
export async function dropPendingTasksOfDocument(db: Db, documentId: string): Promise<void> {
  const { tasks } = tables(db);
  await db.delete(tasks).where(and(eq(tasks.documentId, documentId), inArray(tasks.status, ["queued", "processing"])));
}

/**
 * Another document of the collection whose indexed (or queued) content has this hash:
 * the same file uploaded again. Failed documents do not count.
 */
export async function findSameContent(
  db: Db,
  collectionId: string,
  contentHash: string,
  exceptId: string,
): Promise<DocumentRow | undefined> {
  const { documents } = tables(db);
  return first(
    await db
      .select()
      .from(documents)
      .where(
        and(
          eq(documents.collectionId, collectionId),
          eq(documents.contentHash, contentHash),
          ne(documents.id, exceptId),
          ne(documents.status, "failed"),
        ),
      )
      .orderBy(asc(documents.id))
      .limit(1),
  );
}
