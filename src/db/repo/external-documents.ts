/**
 * Named queries of the documents API (docs/API.md, Documents API): documents by the
 * client's external id, a page of them, and the text and tasks an upsert replaces.
 */
import { and, asc, count, eq, gt, inArray, ne, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { first, type PlainSql, selectRows, tables } from "../dialect";
import { DOCUMENT_FIELDS } from "./document-fields";
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

// The ids as an IN list: joined to json_each instead, SQLite scanned the collection's index once per id.
const BY_EXTERNAL_IDS: PlainSql = {
  sqlite: `SELECT ${DOCUMENT_FIELDS.sqlite} FROM documents d
  WHERE d.collection_id = $collectionId AND d.external_id IN (SELECT value FROM json_each($ids))`,
  pg: `SELECT ${DOCUMENT_FIELDS.pg} FROM documents d
  WHERE d.collection_id = $collectionId
    AND d.external_id IN (SELECT value FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value))`,
};

/**
 * The documents a client knows by these external ids in a collection, by external id:
 * a batch reads the stored versions of its items at once, in one statement prepared
 * once (the query builder would build and prepare one with 500 parameters per batch).
 */
export async function documentsByExternalIds(
  db: Db,
  collectionId: string,
  externalIds: string[],
): Promise<Map<string, DocumentRow>> {
  const rows = await selectRows<DocumentRow>(db, BY_EXTERNAL_IDS, { collectionId, ids: JSON.stringify(externalIds) });
  return new Map(rows.map((r) => [r.externalId!, r]));
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
