/**
 * Data sources of a pipeline (documents of a collection): create, list, delete,
 * retry, and the signed file upload. Ingestion itself is the engine's.
 */
import type { Config } from "../../config";
import type { Db } from "../../db/client";
import type { Store } from "../../db/store";
import { externalIdProblem, type Metadata, metadataProblems } from "../../core/metadata";
import { findDocument, findDocumentById, findDocumentWithPreview, updateDocument } from "../../db/repo/documents";
import { findDocumentByExternalId } from "../../db/repo/external-documents";
import type { Collection, DocumentRow } from "../../db/schema";
import type { FileStore, SavedFile } from "../../files/store";
import { UPLOAD_TTL_MS, checkSignature, signUploadUrl } from "../../files/signing";
import { refuseDuplicateFile } from "../../core/duplicates";
import { AppError, notFound } from "../../http/errors";
import type { IngestEngine } from "../../ingest/engine";
import { sourceUrlProblem } from "../../ingest/fetch";
import type { DocumentDraft, Enqueued } from "../../ingest/tasks/queue";
import { splitCredentials } from "../../tools/url-credentials";
import { ensureRoom } from "../../tools/disk";
import type { VectorStore } from "../../vectors/store";
import { allSources, pageSources, type SourceListQueryIn, wantsPage } from "./list";
import type { SourceCreateBody, SourcePatchBody } from "./schemas";
import { presentSource } from "./present";
import { checkFetchSettings, crawledPage, fetchRowOf, patchFetchSettings } from "./refresh";
import { findSourceFetch, saveSourceFetch } from "../../db/repo/source-fetches";
import { refetchNow } from "../../ingest/sync/refresh";
import { checkFolderSettings, refuseFolderFields } from "./folder";
import { checkGitSettings, refuseGitFields } from "./git";
import { checkBucketSettings, refuseBucketFields } from "./bucket";
import { storedCredentials } from "../../core/bucket-settings";
import { patchedCredentials } from "./credentials";
import { retagLinked, rewriteLinkedChunks } from "../../ingest/sync/inherited-metadata";

export interface SourceDeps {
  db: Store;
  engine: IngestEngine;
  vectorStore: VectorStore;
  files: FileStore;
  secret: Buffer;
  config: Pick<Config, "maxUploadMb" | "dataDir" | "minFreeMb" | "fetchAllow" | "fetchDeny" | "folderRoots">;
  baseUrl: () => string;
  /**
   * With object storage, the presigned PUT of a file source to the store itself, which is
   * then watched for the file (bucket-uploads.ts); null: ragd's own signed upload URL.
   */
  bucketUpload: ((row: DocumentRow, expires: number) => string) | null;
  /** Where a failure of work after the answer goes (the linked sources' chunk metadata). */
  log: (msg: string, fields?: object) => void;
}

/** The new document a create body describes; a file source waits for its upload. */
const draftOf = (collectionId: string, b: SourceCreateBody): DocumentDraft => {
  // Credentials in the URL are kept apart: only the fetcher reads them (docs/API.md, data sources).
  const fetched =
    b.type === "url" || b.type === "api" ? splitCredentials(b.url!) : b.type === "git" ? checkGitSettings(b) : null;
  return {
    collectionId,
    type: b.type,
    name: nameFor(b, fetched?.url ?? null),
    contentLength: b.type === "text" ? b.content!.length : null,
    url: fetched?.url ?? null,
    urlCredentials: fetched?.credentials ?? null,
    fileName: b.type === "file" ? b.fileName! : null,
    fileSize: b.type === "file" ? b.fileSize! : null,
    metadata: b.metadata as Metadata | undefined,
    externalId: b.externalId ?? null,
  };
};

/** The display name: given, or derived from the content, the file name or the URL shown. */
const nameFor = (b: SourceCreateBody, shownUrl: string | null): string =>
  (
    b.name?.trim() ||
    (b.type === "file"
      ? b.fileName
      : b.type === "text"
        ? b.content?.trim().slice(0, 60)
        : b.type === "folder"
          ? b.path
          : b.type === "s3"
            ? `${b.bucket}/${b.prefix ?? ""}`
            : shownUrl) ||
    b.type
  ).slice(0, 200);

export class SourceService {
  private readonly uploading = new Set<string>();

  constructor(private readonly d: SourceDeps) {}

  /** A page when any paging parameter is given, else every source (docs/API.md, listing sources). */
  list(collection: Collection, query: SourceListQueryIn = {}) {
    const db = this.d.db.reader;
    return wantsPage(query) ? pageSources(db, collection, query) : allSources(db, collection.id);
  }

  /** Creates a source; text/url/api start ingesting at once, file waits for its upload. */
  async create(collection: Collection, body: SourceCreateBody) {
    checkFields(body, this.d.config);
    const fetchSettings = checkFetchSettings(body.type, body);
    const folder = body.type === "folder" ? checkFolderSettings(body, this.d.config.folderRoots) : null;
    const git = body.type === "git" ? checkGitSettings(body).settings : null;
    // A bucket's keys go where a URL's credentials go: read by the fetcher only, never shown.
    const bucket = body.type === "s3" ? checkBucketSettings(body, this.d.config) : null;
    // 507 while the disk is under RAGD_MIN_FREE_MB, or would be once the declared bytes are in
    // (a file in a bucket takes none of it).
    const fileBytes = this.d.bucketUpload ? 0 : (body.fileSize ?? 0);
    ensureRoom(this.d.config.dataDir, this.d.config.minFreeMb, fileBytes || (body.content?.length ?? 0));
    await this.d.engine.requireRoom();
    await this.checkExternalIdFree(collection, body.externalId);
    const content = body.type === "text" ? body.content : undefined;
    // A url/api source gets its refresh schedule (and crawl) in the same commit as its row; a folder its settings.
    const fetched = body.type === "url" || body.type === "api" || folder !== null || git !== null || bucket !== null;
    const settings = folder ?? bucket?.settings;
    const also = (t: Db, r: DocumentRow) =>
      saveSourceFetch(t, r.id, {
        ...fetchRowOf(fetchSettings, Date.now()),
        ...(settings ? { crawl: JSON.stringify(settings) } : git ? { crawl: JSON.stringify(git) } : {}),
      });
    const draft = draftOf(collection.id, body);
    if (bucket) draft.urlCredentials = storedCredentials(bucket.credentials);
    const row = await this.d.engine.createDocument(draft, content, fetched ? also : undefined).catch((err) => {
      // A concurrent create with the same external id won the unique index.
      if (/UNIQUE constraint failed: documents\.collection_id, documents\.external_id/.test(String(err)))
        throw externalIdTaken(body.externalId!);
      throw err;
    });
    if (!row) throw notFound("pipeline");
    if (row.status !== "awaiting_upload")
      return presentSource({ ...row, preview: content ?? null }, await findSourceFetch(this.d.db.reader, row.id));
    const expires = Date.now() + UPLOAD_TTL_MS;
    const uploadUrl =
      this.d.bucketUpload?.(row, expires) ??
      signUploadUrl(this.d.secret, this.d.baseUrl(), { sourceId: row.id, expires, size: row.fileSize! });
    return { ...presentSource({ ...row, preview: null }), uploadUrl, uploadExpiresAt: new Date(expires).toISOString() };
  }

  /** One source, as the list shows it. */
  async get(collection: Collection, id: string) {
    const doc = await this.find(collection, id);
    const [shown, fetch] = await Promise.all([
      findDocumentWithPreview(this.d.db.reader, doc.id),
      findSourceFetch(this.d.db.reader, doc.id),
    ]);
    // Deleted since it was found.
    if (!shown) throw notFound("source");
    return presentSource(shown, fetch);
  }

  /**
   * Renames a source, replaces its metadata or sets its credentials again (credentials.ts).
   * The chunk rows get the new metadata in place (vectors kept, nothing embedded) before
   * this returns, so the next query filters on it; a crawl's pages and a synced source's
   * files follow it (inherited-metadata.ts), their chunk rows soon after.
   */
  async update(collection: Collection, id: string, body: SourcePatchBody) {
    const { doc, patch, linked } = await this.d.db.atomically(async (tx) => {
      const doc = await this.find(collection, id, tx);
      if (body.metadata !== undefined) refuseProblems(metadataProblems(body.metadata));
      await patchFetchSettings(tx, doc, body);
      const patch: Partial<DocumentRow> = {};
      const credentials = patchedCredentials(doc, body);
      if (credentials !== undefined) patch.urlCredentials = credentials;
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.metadata !== undefined) patch.metadata = JSON.stringify(body.metadata);
      if (Object.keys(patch).length)
        await updateDocument(tx, doc.id, { ...patch, updatedAt: new Date().toISOString() });
      const linked = patch.metadata === undefined ? [] : await retagLinked(tx, doc, doc.metadata, patch.metadata);
      return { doc, patch, linked };
    });
    if (patch.metadata !== undefined && patch.metadata !== doc.metadata)
      await this.d.vectorStore.rewriteMetadata(collection.id, doc.id);
    void rewriteLinkedChunks(this.d.vectorStore, collection.id, linked, this.d.log);
    return this.get(collection, doc.id);
  }

  private async checkExternalIdFree(collection: Collection, externalId: string | undefined): Promise<void> {
    if (externalId !== undefined && (await findDocumentByExternalId(this.d.db.reader, collection.id, externalId)))
      throw externalIdTaken(externalId);
  }

  /** The collection's source `id`, read through `db` (a transaction's, to act on it in that transaction). */
  async find(collection: Collection, id: string, db: Db = this.d.db.reader): Promise<DocumentRow> {
    const doc = await findDocument(db, collection.id, id);
    if (!doc) throw notFound("source");
    return doc;
  }

  /** Deletes a source with its chunks, file and tasks, even mid-ingestion. */
  async remove(collection: Collection, id: string) {
    const doc = await this.find(collection, id);
    await this.d.engine.removeDocument(collection.id, doc.id);
    return { deleted: true as const, id: doc.id };
  }

  /** Queues a failed source again; its status is checked in the transaction that queues it. */
  async retry(collection: Collection, id: string) {
    const check = async (tx: Db) => {
      const doc = await this.find(collection, id, tx);
      if (doc.status !== "failed")
        throw new AppError("conflict", `only a failed source can be retried; this one is ${doc.status}`);
    };
    if ((await this.d.engine.enqueue(id, { check })) === "gone") throw notFound("source");
    return this.get(collection, id);
  }

  /**
   * Fetches a url/api source again now (a crawl source crawls again, a folder source syncs), as
   * an ordinary task; nothing is queued when one already waits or runs. A schedule restarts from now.
   */
  async refetch(collection: Collection, id: string) {
    const doc = await this.find(collection, id);
    if (!["url", "api", "folder", "s3", "git"].includes(doc.type))
      throw new AppError(
        "conflict",
        `only url, api, folder, s3 and git sources can be fetched again; this one is ${doc.type}`,
      );
    const state = await findSourceFetch(this.d.db.reader, doc.id);
    if (state?.crawlSourceId) throw crawledPage(state.crawlSourceId);
    if (await refetchNow(this.d.db, doc.id, state?.refreshEvery ?? null)) this.d.engine.kick();
    return this.get(collection, doc.id);
  }

  /** Re-index: rebuild every source with the pipeline's current settings; the old index answers meanwhile. */
  reindex(collection: Collection, gate: string | null = null): Promise<void> {
    return this.d.engine.reindex(collection.id, gate);
  }

  /** Receives the bytes of a file source through its signed URL. */
  async upload(
    sourceId: string,
    query: Record<string, string | undefined>,
    body: ReadableStream<Uint8Array> | null,
    contentLength = Number.NaN,
  ) {
    const problem = checkSignature(this.d.secret, sourceId, query);
    if (problem) throw new AppError("forbidden", problem);
    const doc = await findDocumentById(this.d.db.reader, sourceId);
    if (!doc) throw notFound("source");
    if (doc.status !== "awaiting_upload" || this.uploading.has(doc.id)) {
      throw new AppError("conflict", "this source already has its file; create a new source to upload another");
    }
    const declared = Number(query.size);
    ensureRoom(this.d.config.dataDir, this.d.config.minFreeMb, declared);
    const limit = Math.min(declared, this.d.config.maxUploadMb * 1024 * 1024);
    // A Content-Length over what the URL allows is 413 before a byte is read.
    if (contentLength > limit) throw new AppError("payload_too_large", `the file is larger than ${limit} bytes`);
    this.uploading.add(doc.id);
    try {
      const saved = await this.d.files.save(doc.collectionId, doc.id, body, limit);
      return await this.finishUpload(doc, saved);
    } finally {
      this.uploading.delete(doc.id);
    }
  }

  /**
   * Takes a file source's file once it is stored whole (through upload above, or put in
   * the bucket by the client): refuses an empty or duplicate file, removing it, and
   * queues the source. The one completion of an upload, wherever the bytes went. The
   * duplicate check and the queueing share a transaction: two sources cannot both take the same file.
   */
  async finishUpload(doc: DocumentRow, { size, hash }: SavedFile) {
    if (size === 0) {
      await this.d.files.remove(doc.collectionId, doc.id);
      throw new AppError("invalid_request", "the uploaded file is empty");
    }
    const upload = { filePath: doc.id, fileSize: size, contentHash: hash };
    // The source keeps waiting for a file: another one may still be uploaded to it.
    const check = (tx: Db) => refuseDuplicateFile(tx, doc.collectionId, doc.id, hash);
    let outcome: Enqueued;
    try {
      outcome = await this.d.engine.enqueue(doc.id, { upload, check });
    } catch (err) {
      await this.d.files.remove(doc.collectionId, doc.id);
      throw err;
    }
    if (outcome !== "queued") {
      // The source (or its whole pipeline) was deleted while the bytes arrived, or another upload claimed it.
      await this.d.files.remove(doc.collectionId, doc.id);
      await this.d.files.removeCollectionIfEmpty(doc.collectionId);
      throw outcome === "gone" ? notFound("source") : new AppError("conflict", "this source already has its file");
    }
    const row = await findDocumentById(this.d.db.reader, doc.id);
    // Deleted since it was queued.
    if (!row) throw notFound("source");
    return presentSource({ ...row, preview: null });
  }
}

function externalIdTaken(externalId: string): AppError {
  return new AppError(
    "conflict",
    `externalId ${JSON.stringify(externalId)} is already used by another source of this pipeline`,
    [{ field: "externalId", message: "is already used by another source of this pipeline" }],
  );
}

/** 400 naming every metadata or externalId problem. */
function refuseProblems(problems: { field: string; message: string }[]): void {
  const first = problems[0];
  if (first) throw new AppError("invalid_request", `${first.field}: ${first.message}`, problems.slice(0, 20));
}

/** Checks the fields each source type needs. */
function checkFields(b: SourceCreateBody, config: SourceDeps["config"]): void {
  const maxBytes = config.maxUploadMb * 1024 * 1024;
  if (b.metadata !== undefined) refuseProblems(metadataProblems(b.metadata));
  if (b.type !== "git") refuseFolderFields(b);
  refuseGitFields(b);
  refuseBucketFields(b);
  if (b.externalId !== undefined) refuseProblems([externalIdProblem(b.externalId)].filter((p) => p !== undefined));
  const need = (field: keyof SourceCreateBody, message: string) => {
    throw new AppError("invalid_request", `${field}: ${message}`, [{ field, message }]);
  };
  if (b.type === "text" && !b.content?.trim()) need("content", "is required for a text source");
  if (b.type === "url" || b.type === "api" || b.type === "git") {
    if (!b.url) need("url", `is required for a ${b.type} source`);
    // An address the fetch rules refuse is known now, not at the first fetch (docs/API.md, data sources).
    const problem = sourceUrlProblem(b.url!, config);
    if (problem) need("url", problem);
  }
  if (b.type === "file") {
    if (!b.fileName?.trim()) need("fileName", "is required for a file source");
    if (b.fileSize === undefined) need("fileSize", "is required for a file source (bytes)");
    if (b.fileSize! < 1) need("fileSize", "must be at least 1 byte");
    if (b.fileSize! > maxBytes)
      throw new AppError("payload_too_large", `files larger than ${maxBytes} bytes are not accepted`);
  }
}
