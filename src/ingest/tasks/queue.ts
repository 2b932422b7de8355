/**
 * Documents into the queue: the row a new document starts as, and the one waiting
 * task in its collection's target generation (generations.ts says which).
 */
import type { Metadata } from "../../core/metadata";
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
import { claimUpload, findDocumentById, insertDocument, markDocumentQueued } from "../../db/repo/documents";
import { insertQueuedDocuments } from "../../db/repo/task-batches";
import { insertTask, pendingTasksOfDocument } from "../../db/repo/tasks";
import type { Collection, DocumentRow } from "../../db/schema";
import { recordSourceEvent, recordSourceEvents } from "../events";
import { targetGeneration } from "../generations";

const iso = (ms: number) => new Date(ms).toISOString();

/** What the caller knows of a new document; every other field starts the same for all. */
export type DocumentDraft = Pick<DocumentRow, "collectionId" | "type" | "name"> & {
  metadata?: Metadata;
} & Partial<Pick<DocumentRow, "externalId" | "contentHash">> &
  Partial<Pick<DocumentRow, "id" | "contentLength" | "url" | "urlCredentials" | "fileName" | "fileSize" | "filePath">>;

/** What `engine.enqueue` did: queued it, found the document (or its collection) deleted, or its file already taken. */
export type Enqueued = "queued" | "gone" | "has_file";

/** An uploaded file as its document records it. */
export interface UploadedFile {
  filePath: string;
  fileSize: number;
  /** SHA-256 of the bytes, when the receiver computed it. */
  contentHash?: string;
}

/**
 * A new document's row: a file source without its bytes waits for the upload; anything else
 * is queued, a folder's file too (its bytes are in its folder, their hash known).
 */
export function newDocumentRow(d: DocumentDraft, now = Date.now()): DocumentRow {
  const stamp = iso(now);
  return {
    id: d.id ?? Bun.randomUUIDv7(),
    collectionId: d.collectionId,
    type: d.type,
    name: d.name,
    contentLength: d.contentLength ?? null,
    url: d.url ?? null,
    urlCredentials: d.urlCredentials ?? null,
    fileName: d.fileName ?? null,
    fileSize: d.fileSize ?? null,
    filePath: d.filePath ?? null,
    status: d.type === "file" && !d.filePath && !d.contentHash ? "awaiting_upload" : "queued",
    error: null,
    chunkCount: 0,
    progressDone: 0,
    progressTotal: 0,
    progressUnit: "chunks",
    createdAt: stamp,
    updatedAt: stamp,
    indexedAt: null,
    metadata: JSON.stringify(d.metadata ?? {}),
    externalId: d.externalId ?? null,
    contentHash: d.contentHash ?? null,
    ocr: null,
  };
}

/** Stores a new document (and a text source's content) with its task, unless it waits for its file. */
export async function insertNewDocument(
  db: Db,
  row: DocumentRow,
  col: Collection,
  now: number,
  content?: string,
): Promise<void> {
  await insertDocument(db, row, content);
  if (row.status !== "queued") return;
  await insertTask(db, { documentId: row.id, collectionId: col.id, generation: targetGeneration(col), now });
  await recordSourceEvent(db, "source.queued", row.id, {}, now);
}

/**
 * Stores new queued documents of one collection (and a text source's content) with their
 * tasks and `source.queued` events, a few statements for all, where insertNewDocument
 * takes a few each: a batch request's new documents (upsert-many.ts) and a sync's new files.
 */
export async function insertNewDocuments(
  db: Db,
  docs: { row: DocumentRow; content?: string }[],
  col: Collection,
  now: number,
): Promise<void> {
  await insertQueuedDocuments(db, docs, targetGeneration(col), now);
  await recordSourceEvents(
    db,
    "source.queued",
    docs.map((d) => d.row.id),
    now,
  );
}

/**
 * Queues a task for a stored document in the collection's target generation and
 * marks the document queued; a second waiting task for the same generation is not added.
 */
export async function queueTask(db: Db, documentId: string, col: Collection, now: number): Promise<void> {
  const generation = targetGeneration(col);
  const waiting = (await pendingTasksOfDocument(db, documentId)).some(
    (t) => t.status === "queued" && t.generation === generation,
  );
  if (!waiting) await insertTask(db, { documentId, collectionId: col.id, generation, now });
  await markDocumentQueued(db, documentId, iso(now));
  await recordSourceEvent(db, "source.queued", documentId, {}, now);
}

/**
 * Queues a stored document again; with `upload`, it first takes its uploaded file
 * (awaiting_upload to queued, once). Run it inside a transaction.
 */
export async function requeueDocument(
  db: Db,
  documentId: string,
  opts: { upload?: UploadedFile },
  now: number,
): Promise<Enqueued> {
  const doc = await findDocumentById(db, documentId);
  const col = doc && (await findCollectionById(db, doc.collectionId));
  if (!doc || !col) return "gone";
  if (opts.upload && !(await claimUpload(db, doc.id, { ...opts.upload, updatedAt: iso(now) }))) return "has_file";
  await queueTask(db, doc.id, col, now);
  return "queued";
}
