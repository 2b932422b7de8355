/** Named queries on documents (pipeline sources and knowledge-base documents). */
import { and, asc, eq, ilike, like, sql } from "drizzle-orm";
import { DISK_FULL_LIKE } from "../../tools/disk";
import type { Db } from "../client";
import { first, isPg, type PlainSql, runSql, tables } from "../dialect";
import { once, ph, placeholdersOf } from "../prepared";
import type { DocumentRow } from "../schema";

export async function listDocuments(db: Db, collectionId: string): Promise<DocumentRow[]> {
  const { documents } = tables(db);
  return await db.select().from(documents).where(eq(documents.collectionId, collectionId)).orderBy(asc(documents.id));
}

export async function findDocument(db: Db, collectionId: string, id: string): Promise<DocumentRow | undefined> {
  const { documents } = tables(db);
  return first(
    await db
      .select()
      .from(documents)
      .where(and(eq(documents.collectionId, collectionId), eq(documents.id, id))),
  );
}

const byId = (db: Db) => {
  const { documents } = tables(db);
  return db
    .select()
    .from(documents)
    .where(eq(documents.id, ph("id")))
    .prepare();
};

export async function findDocumentById(db: Db, id: string): Promise<DocumentRow | undefined> {
  return first(await once(db, byId).execute({ id }));
}

const insert = (db: Db) => {
  const { documents } = tables(db);
  const row: Record<keyof DocumentRow, null> = {
    id: null,
    collectionId: null,
    type: null,
    name: null,
    contentLength: null,
    url: null,
    urlCredentials: null,
    fileName: null,
    fileSize: null,
    filePath: null,
    status: null,
    error: null,
    chunkCount: null,
    progressDone: null,
    progressTotal: null,
    progressUnit: null,
    createdAt: null,
    updatedAt: null,
    indexedAt: null,
    metadata: null,
    externalId: null,
    contentHash: null,
    ocr: null,
  };
  return db.insert(documents).values(placeholdersOf(row)).prepare();
};

const insertText = (db: Db) => {
  const { documentTexts } = tables(db);
  return db
    .insert(documentTexts)
    .values({ documentId: ph("id"), content: ph("content") })
    .prepare();
};

/** Stores a document row, and a text source's content beside it. */
export async function insertDocument(db: Db, d: DocumentRow, content?: string): Promise<void> {
  await once(db, insert).execute(d);
  if (content !== undefined) await once(db, insertText).execute({ id: d.id, content });
}

const textOf = (db: Db) => {
  const { documentTexts } = tables(db);
  return db
    .select({ content: documentTexts.content })
    .from(documentTexts)
    .where(eq(documentTexts.documentId, ph("id")))
    .prepare();
};

/** A text source's content; null for other documents. */
export async function findDocumentText(db: Db, id: string): Promise<string | null> {
  return first(await once(db, textOf).execute({ id }))?.content ?? null;
}

/**
 * How much of a text source's content a response carries. Lists and pipeline
 * pages stay small however large the texts are; `contentLength` gives the size.
 */
export const CONTENT_PREVIEW_CHARS = 2000;

/** A document with the start of its text, for showing it. */
export type DocumentWithPreview = DocumentRow & { preview: string | null };

const withPreview = (db: Db) => {
  const { documents, documentTexts } = tables(db);
  return {
    row: documents,
    preview: sql<string | null>`substr(${documentTexts.content}, 1, ${CONTENT_PREVIEW_CHARS})`,
  };
};
const flatten = (r: { row: DocumentRow; preview: string | null }): DocumentWithPreview => ({
  ...r.row,
  preview: r.preview,
});

/** The documents of a collection, oldest first, each with the start of its text. */
export async function listDocumentsWithPreview(db: Db, collectionId: string): Promise<DocumentWithPreview[]> {
  const { documents, documentTexts } = tables(db);
  return (
    await db
      .select(withPreview(db))
      .from(documents)
      .leftJoin(documentTexts, eq(documentTexts.documentId, documents.id))
      .where(eq(documents.collectionId, collectionId))
      .orderBy(asc(documents.id))
  ).map(flatten);
}

export async function findDocumentWithPreview(db: Db, id: string): Promise<DocumentWithPreview | undefined> {
  const { documents, documentTexts } = tables(db);
  const r = first(
    await db
      .select(withPreview(db))
      .from(documents)
      .leftJoin(documentTexts, eq(documentTexts.documentId, documents.id))
      .where(eq(documents.id, id)),
  );
  return r && flatten(r);
}

const SET_METADATA: PlainSql = {
  sqlite: `UPDATE documents SET metadata = json_extract(j.value, '$.metadata'), updated_at = $now
  FROM json_each($items) AS j WHERE documents.id = json_extract(j.value, '$.id')`,
  pg: `UPDATE documents AS d SET metadata = x.metadata, updated_at = $now
  FROM jsonb_to_recordset($items::text::jsonb) AS x(id text, metadata text) WHERE d.id = x.id`,
};

/** New metadata (stored JSON) for many documents, in one statement, with their update time. */
export async function setMetadataOf(db: Db, items: { id: string; metadata: string }[], now: string): Promise<void> {
  if (items.length > 0) await runSql(db, SET_METADATA, { items: JSON.stringify(items), now });
}

/** Any change to a document; the frequent ones below are prepared once. */
export async function updateDocument(db: Db, id: string, patch: Partial<DocumentRow>): Promise<void> {
  const { documents } = tables(db);
  await db.update(documents).set(patch).where(eq(documents.id, id));
}

const progress = (db: Db) => {
  const { documents } = tables(db);
  return db
    .update(documents)
    .set({ progressDone: ph("done"), progressTotal: ph("total"), progressUnit: ph("unit") })
    .where(eq(documents.id, ph("id")))
    .prepare();
};

export async function setDocumentProgress(
  db: Db,
  id: string,
  done: number,
  total: number,
  unit: "chunks" | "pages" = "chunks",
): Promise<void> {
  await once(db, progress).execute({ id, done, total, unit });
}

const queued = (db: Db) => {
  const { documents } = tables(db);
  return db
    .update(documents)
    .set({
      status: "queued",
      error: null,
      progressDone: 0,
      progressTotal: 0,
      progressUnit: "chunks",
      updatedAt: ph("now"),
    })
    .where(eq(documents.id, ph("id")))
    .prepare();
};

/** Back in the queue, with its error and progress cleared. */
export async function markDocumentQueued(db: Db, id: string, now: string): Promise<void> {
  await once(db, queued).execute({ id, now });
}

const ready = (db: Db) => {
  const { documents } = tables(db);
  return db
    .update(documents)
    .set({
      status: "ready",
      error: null,
      chunkCount: ph("n"),
      progressDone: ph("n"),
      progressTotal: ph("n"),
      progressUnit: "chunks",
      indexedAt: ph("now"),
      updatedAt: ph("now"),
    })
    .where(eq(documents.id, ph("id")))
    .prepare();
};

/** Indexed with `chunkCount` chunks. */
export async function markDocumentReady(db: Db, id: string, chunkCount: number, now: string): Promise<void> {
  await once(db, ready).execute({ id, n: chunkCount, now });
}

/** Moves a document from awaiting_upload to queued exactly once; false if it was not waiting. */
export async function claimUpload(db: Db, id: string, patch: Partial<DocumentRow>): Promise<boolean> {
  const { documents } = tables(db);
  const claimed = await db
    .update(documents)
    .set({ ...patch, status: "queued" })
    .where(and(eq(documents.id, id), eq(documents.status, "awaiting_upload")))
    .returning({ id: documents.id });
  return claimed.length === 1;
}

export async function deleteDocumentRow(db: Db, id: string): Promise<void> {
  const { documents } = tables(db);
  await db.delete(documents).where(eq(documents.id, id));
}

/** After an abandoned rebuild: failed documents say the previous index still answers for them. */
export async function markRebuildFailed(db: Db, collectionId: string, now: string): Promise<void> {
  const { documents } = tables(db);
  await db
    .update(documents)
    .set({
      error: sql`${documents.error} || '; the re-index was abandoned and the previous index still answers'`,
      updatedAt: now,
    })
    .where(and(eq(documents.collectionId, collectionId), eq(documents.status, "failed")));
}

/** After a switch: documents that failed to rebuild have no chunks in the new index. */
export async function zeroFailedChunkCounts(db: Db, collectionId: string): Promise<void> {
  const { documents } = tables(db);
  await db
    .update(documents)
    .set({ chunkCount: 0 })
    .where(and(eq(documents.collectionId, collectionId), eq(documents.status, "failed")));
}

/** Failed documents whose error says the disk was full: they are queued again once space is back. */
export async function documentsFailedForSpace(db: Db): Promise<DocumentRow[]> {
  const { documents } = tables(db);
  // SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's ILIKE does the same.
  const diskFull = isPg(db) ? ilike(documents.error, DISK_FULL_LIKE) : like(documents.error, DISK_FULL_LIKE);
  return await db
    .select()
    .from(documents)
    .where(and(eq(documents.status, "failed"), diskFull));
}

/** File sources still waiting for their bytes, created at or after `since` (ISO); a scan, for start-up only. */
export async function listAwaitingUploads(db: Db, since: string): Promise<DocumentRow[]> {
  const { documents } = tables(db);
  return await db
    .select()
    .from(documents)
    .where(and(eq(documents.status, "awaiting_upload"), sql`${documents.createdAt} >= ${since}`));
}

/** Fails a document still waiting for its file, with `error`; false if it was not waiting. */
export async function failAwaitingUpload(db: Db, id: string, error: string, now: string): Promise<boolean> {
  const { documents } = tables(db);
  const failed = await db
    .update(documents)
    .set({ status: "failed", error, updatedAt: now })
    .where(and(eq(documents.id, id), eq(documents.status, "awaiting_upload")))
    .returning({ id: documents.id });
  return failed.length === 1;
}
