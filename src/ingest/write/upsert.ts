/**
 * Upsert by external id, decided inside the write transaction so two requests for
 * the same id cannot both create it (docs/API.md, Documents API). Content that
 * hashes the same as what is indexed keeps its chunks and embeds nothing; a new
 * version is queued while the old chunks keep answering until the new ones are
 * committed (sink.ts replaces them in one commit).
 */
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { FetchSettings } from "../../core/fetch-settings";
import type { Metadata } from "../../core/metadata";
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
import { updateDocument } from "../../db/repo/documents";
import {
  dropPendingTasksOfDocument,
  findDocumentByExternalId,
  replaceDocumentText,
} from "../../db/repo/external-documents";
import type { DocumentRow } from "../../db/schema";
import { retagLinked } from "../sync/inherited-metadata";
import { findSourceFetch, type SourceFetchPatch, saveSourceFetch } from "../../db/repo/source-fetches";
import { UpsertRefused } from "../errors";
import { insertNewDocument, newDocumentRow, queueTask } from "../tasks/queue";
import { fetchRowOf } from "../sync/refresh";

/** One document as a client sends it, checked and ready to store. */
export interface UpsertPlan {
  collectionId: string;
  externalId: string;
  type: DocumentRow["type"];
  /** The name given, if any; `derivedName` names a new document that has none. */
  name?: string;
  derivedName: string;
  content?: string;
  url?: string;
  urlCredentials?: string | null;
  /**
   * The received file. On disk `staged` is a temporary path, moved into place (named by
   * the document id) if the write stores it. In object storage it is the name of an
   * object already under the collection's files, which the row then names (filePath).
   */
  file?: { fileName: string; fileSize: number; staged: string };
  /**
   * Where a document's file is stored on disk (files/disk-store.ts); null when files are
   * in object storage, where objects are removed after the commit (Upserted.formerFile).
   */
  filePathOf: ((documentId: string) => string) | null;
  /** SHA-256 of the text or the file bytes; null for url/api (their job hashes the fetched text). */
  contentHash: string | null;
  /** Undefined keeps a replaced document's metadata. */
  metadata?: Metadata;
  /** url/api: the refresh schedule and crawl; a field left out keeps a replaced document's. */
  fetch?: FetchSettings;
  /** Prefix of the field names in a refusal ("documents.3." for a batch item). */
  fieldPrefix?: string;
}

export type UpsertStatus = "created" | "replaced" | "unchanged";

export interface Upserted {
  status: UpsertStatus;
  row: DocumentRow;
  /** Name or metadata changed without new content: the chunk rows' copy must follow. */
  metadataChanged: boolean;
  /** A task was queued: the engine must cancel an older running job and look for work. */
  queued: boolean;
  /**
   * The file the replaced version named, when the row names it no more: removed inside
   * the commit on disk, and to be removed after it in object storage.
   */
  formerFile?: string | null;
  /** Linked sources (a crawl's pages, a synced source's files) whose metadata followed this one's (inherited-metadata.ts). */
  linked?: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The name and metadata a plan changes of a stored document (empty when it changes neither). */
function labelPatch(existing: DocumentRow, p: UpsertPlan): Partial<DocumentRow> {
  const patch: Partial<DocumentRow> = {};
  if (p.name !== undefined && p.name !== existing.name) patch.name = p.name;
  const metadata = p.metadata === undefined ? existing.metadata : JSON.stringify(p.metadata);
  if (metadata !== existing.metadata) patch.metadata = metadata;
  return patch;
}

/**
 * A text sent again as it is stored, with the same name and metadata: the upsert would
 * write nothing, so a batch answers it from the row it read, without a statement of its
 * own (a sync job sends mostly these). Null when upsertDocumentTx must decide.
 */
export function untouched(existing: DocumentRow, p: UpsertPlan): Upserted | null {
  // Only a text: a file's upload must be let go, a url/api source fetches again.
  if (p.type !== "text" || !sameContent(existing, p)) return null;
  if (Object.keys(labelPatch(existing, p)).length > 0) return null;
  return { status: "unchanged", row: existing, metadataChanged: false, queued: false };
}

/** True when the stored document already indexes exactly this content. */
function sameContent(doc: DocumentRow, p: UpsertPlan): boolean {
  if (doc.type !== p.type || doc.status === "failed" || doc.status === "awaiting_upload") return false;
  // url/api: the job fetches again and compares the extracted text with the stored hash.
  if (p.type === "url" || p.type === "api") return false;
  return doc.contentHash !== null && doc.contentHash === p.contentHash;
}

/** The row of the new document a plan creates (a file's row points at its stored file). */
export function createdRow(p: UpsertPlan, now: number): DocumentRow {
  const row = newDocumentRow(
    {
      collectionId: p.collectionId,
      type: p.type,
      name: p.name ?? p.derivedName,
      contentLength: p.content?.length ?? null,
      url: p.url ?? null,
      urlCredentials: p.urlCredentials ?? null,
      fileName: p.file?.fileName ?? null,
      fileSize: p.file?.fileSize ?? null,
      externalId: p.externalId,
      contentHash: p.contentHash,
      metadata: p.metadata ?? {},
    },
    now,
  );
  if (p.file) Object.assign(row, { filePath: fileNameOf(p, row.id), status: "queued" });
  return row;
}

/** What a stored document's filePath says: its id on disk; in object storage, the object the file came as. */
const fileNameOf = (p: UpsertPlan, documentId: string): string | null =>
  p.file ? (p.filePathOf ? documentId : p.file.staged) : null;

/** Creates, replaces or leaves the document `p` names. Run it inside a transaction; null when the collection is gone. */
export async function upsertDocumentTx(t: Db, p: UpsertPlan, now: number): Promise<Upserted | null> {
  const col = await findCollectionById(t, p.collectionId);
  if (!col) return null;
  const existing = await findDocumentByExternalId(t, p.collectionId, p.externalId);
  if (!existing) {
    const row = createdRow(p, now);
    await insertNewDocument(t, row, col, now, p.content);
    if (p.type === "url" || p.type === "api") await saveSourceFetch(t, row.id, fetchRowOf(p.fetch ?? {}, now));
    if (p.file && p.filePathOf) moveInto(p.file.staged, p.filePathOf(row.id));
    return { status: "created", row, metadataChanged: false, queued: true };
  }
  const fetchPatch = await replacedFetch(t, existing, p, now);
  const patch = labelPatch(existing, p);
  if (sameContent(existing, p)) {
    if (p.file && p.filePathOf) rmSync(p.file.staged, { force: true });
    const metadataChanged = Object.keys(patch).length > 0;
    if (metadataChanged) await updateDocument(t, existing.id, { ...patch, updatedAt: iso(now) });
    const linked = await followedBy(t, existing, patch);
    return { status: "unchanged", row: { ...existing, ...patch }, metadataChanged, queued: false, linked };
  }
  Object.assign(patch, {
    type: p.type,
    contentLength: p.content?.length ?? null,
    url: p.url ?? null,
    urlCredentials: p.urlCredentials ?? null,
    fileName: p.file?.fileName ?? null,
    fileSize: p.file?.fileSize ?? null,
    filePath: fileNameOf(p, existing.id),
    // url/api keep the hash of what is indexed: their job compares the new text with it.
    contentHash: p.contentHash ?? existing.contentHash,
    updatedAt: iso(now),
  } satisfies Partial<DocumentRow>);
  await updateDocument(t, existing.id, patch);
  const linked = await followedBy(t, existing, patch);
  await replaceDocumentText(t, existing.id, p.content ?? null);
  if (fetchPatch) await saveSourceFetch(t, existing.id, fetchPatch);
  // The previous version's waiting or running job is superseded: its rows are refused from now on.
  await dropPendingTasksOfDocument(t, existing.id);
  await queueTask(t, existing.id, col, now);
  const formerFile = existing.filePath !== null && existing.filePath !== patch.filePath ? existing.filePath : null;
  if (p.file && p.filePathOf) moveInto(p.file.staged, p.filePathOf(existing.id));
  else if (formerFile && p.filePathOf) rmSync(p.filePathOf(existing.id), { force: true });
  const row = { ...existing, ...patch, status: "queued" as const };
  return { status: "replaced", row, metadataChanged: false, queued: true, formerFile, linked };
}

/** The linked sources whose metadata followed the document's new metadata (none when it kept its own). */
const followedBy = (t: Db, existing: DocumentRow, patch: Partial<DocumentRow>): Promise<string[]> =>
  patch.metadata === undefined ? Promise.resolve([]) : retagLinked(t, existing, existing.metadata, patch.metadata);

/**
 * What a replacement changes of a document's fetch state, or null for nothing. A crawl
 * stays a crawl and an indexed single page does not become one, as with PATCH (docs/API.md,
 * Refresh and crawl); a document that is no longer url/api loses its schedule.
 */
async function replacedFetch(
  t: Db,
  existing: DocumentRow,
  p: UpsertPlan,
  now: number,
): Promise<SourceFetchPatch | null> {
  const state = await findSourceFetch(t, existing.id);
  const field = (name: string) => `${p.fieldPrefix ?? ""}${name}`;
  if (state?.crawl && p.type !== "url")
    throw new UpsertRefused(field("type"), "a crawl source stays a url source; delete it to store another type");
  if (p.fetch?.crawl && !state?.crawl && existing.chunkCount > 0)
    throw new UpsertRefused(field("crawl"), "cannot turn an indexed single-page source into a crawl; delete it first");
  if (p.type !== "url" && p.type !== "api")
    return state?.refreshEvery ? { refreshEvery: null, nextCheckAt: null } : null;
  // Validators belong to the URL they came from: the next fetch of a replaced source asks afresh.
  return { etag: null, lastModified: null, ...fetchRowOf(p.fetch ?? {}, now) };
}

/** Moves a received file into place (last step of the write, so a refused write leaves none). */
function moveInto(tempPath: string, finalPath: string): void {
  mkdirSync(dirname(finalPath), { recursive: true });
  renameSync(tempPath, finalPath);
}
