/**
 * The documents API: an application keeps a pipeline in step with its own system
 * by external id (docs/API.md, Documents API). It is a third door to the same
 * engine as the session API and knowledge bases: every write is the engine's
 * upsert (ingest/write/upsert.ts), and deletes are the engine's too.
 */
import { rmSync } from "node:fs";

import type { Config } from "../../config";
import { parseStoredMetadata } from "../../core/metadata";
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
import { findDocumentByExternalId, listDocumentPage } from "../../db/repo/external-documents";
import type { Collection, DocumentRow, SourceFetch } from "../../db/schema";
import type { Store } from "../../db/store";
import { findSourceFetch, sourceFetchesOf } from "../../db/repo/source-fetches";
import type { DiskFileStore } from "../../files/disk-store";
import type { FileStore } from "../../files/store";
import { parseDateTime } from "../../http/date-time";
import { AppError, type FieldProblem, notFound } from "../../http/errors";
import type { IngestEngine } from "../../ingest/engine";
import { UpsertRefused } from "../../ingest/errors";
import type { UpsertPlan, Upserted } from "../../ingest/write/upsert";
import type { VectorStore } from "../../vectors/store";
import type { KeyService } from "../keys/service";
import { mayHaveFetchState, presentSource } from "../sources/present";
import { checkExternalId, planJsonDocument } from "./input";
import type { DocumentOut } from "./schemas";
import { rewriteLinkedChunks } from "../../ingest/sync/inherited-metadata";
import { diskStaging, type FileStaging, objectStaging, planFileDocument, type ReceivedDocumentFile } from "./upload";

export interface DocumentDeps {
  db: Store;
  engine: IngestEngine;
  files: FileStore;
  /**
   * The data directory's files, where a file upsert moves its staged file into place
   * inside the write transaction; null with object storage (upload.ts says how it goes there).
   */
  disk: DiskFileStore | null;
  vectorStore: VectorStore;
  keys: KeyService;
  config: Pick<Config, "maxUploadMb" | "fetchAllow" | "fetchDeny">;
  /** Where a failure of work after the answer goes (the linked sources' chunk metadata). */
  log: (msg: string, fields?: object) => void;
}

/** One item's answer in a batch; the same fields as a single upsert, or its error. */
export type BatchItemOut =
  | (Awaited<ReturnType<DocumentService["answer"]>> & { error?: undefined })
  | { externalId: string | null; status: "error"; error: { code: string; message: string; details?: FieldProblem[] } };

/** A source as the documents API shows it (no text preview: `contentLength` gives the size). */
export function presentDocument(d: DocumentRow, fetch?: SourceFetch): DocumentOut {
  const { content: _preview, ...source } = presentSource({ ...d, preview: null }, fetch);
  return {
    ...source,
    externalId: d.externalId,
    metadata: parseStoredMetadata(d.metadata),
    contentHash: d.contentHash,
  };
}

export class DocumentService {
  constructor(private readonly d: DocumentDeps) {}

  /** The pipeline of a key with the ingest scope (the one check, KeyService.authorize). */
  async admit(authorization: string | null): Promise<Collection> {
    const { collectionId } = await this.d.keys.authorize(authorization, "ingest");
    // Deleted since the key was checked: the key went with it.
    const collection = await findCollectionById(this.d.db.reader, collectionId);
    if (!collection) throw new AppError("invalid_api_key", "unknown or revoked API key");
    return collection;
  }

  /** PUT with a JSON body: text, url or api. */
  async upsertJson(collection: Collection, externalId: string, body: unknown) {
    const id = checkExternalId(externalId);
    await this.d.engine.requireRoom(1);
    return this.apply(planJsonDocument(body, id, this.context(collection, "")));
  }

  /** Where the file form's file waits for the upsert (upload.ts). */
  staging(collection: Collection): FileStaging {
    return this.d.disk ? diskStaging(this.d.disk) : objectStaging(this.d.files, collection.id);
  }

  /** PUT with a multipart body: a file part and an optional metadata part. */
  async upsertFile(collection: Collection, externalId: string, received: ReceivedDocumentFile) {
    let took = false;
    try {
      const id = checkExternalId(externalId);
      await this.d.engine.requireRoom(1);
      const plan = planFileDocument(received, id, this.context(collection, ""));
      const done = await this.d.engine.upsertDocument(plan);
      // Committed: whatever comes after, the row names the file now.
      took = done !== null && done.status !== "unchanged";
      return await this.answerStored(plan, done);
    } finally {
      // On disk a stored file was moved into place; anything left was refused. In a
      // bucket the object stays when a row names it.
      if (this.d.disk) rmSync(received.staged, { force: true });
      else if (!took) await this.d.files.remove(collection.id, received.staged).catch(() => {});
    }
  }

  /**
   * Up to 1,000 upserts, a result per item in order. Every item is checked first; the valid
   * ones are then stored together in one transaction (ingest/write/upsert-many.ts).
   */
  async batch(collection: Collection, items: unknown[]): Promise<{ results: BatchItemOut[] }> {
    await this.d.engine.requireRoom(items.length);
    const seen = new Set<string>();
    const results: (BatchItemOut | null)[] = [];
    const plans: { i: number; plan: UpsertPlan }[] = [];
    for (const [i, item] of items.entries()) {
      const prefix = `documents.${i}.`;
      const raw = (item as { externalId?: unknown } | null)?.externalId;
      const externalId = typeof raw === "string" ? raw : null;
      try {
        const id = checkExternalId(raw, `${prefix}externalId`);
        if (seen.has(id)) throw new AppError("invalid_request", `${prefix}externalId: appears twice in this batch`);
        seen.add(id);
        const { externalId: _, ...fields } = item as Record<string, unknown>;
        plans.push({ i, plan: planJsonDocument(fields, id, this.context(collection, prefix)) });
        results.push(null);
      } catch (err) {
        results.push(failed(externalId, err));
      }
    }
    const stored = await this.d.engine.upsertDocuments(plans.map((p) => p.plan));
    await Promise.all(
      plans.map(async ({ i, plan }, k) => {
        const r = stored[k]!;
        try {
          if (!r.ok) throw r.error;
          results[i] = await this.answerStored(plan, r.value);
        } catch (err) {
          results[i] = failed(plan.externalId, err);
        }
      }),
    );
    return { results: results as BatchItemOut[] };
  }

  async list(
    collection: Collection,
    q: { page?: number; pageSize?: number; status?: DocumentRow["status"]; updatedSince?: string },
  ) {
    const since =
      q.updatedSince === undefined ? undefined : new Date(parseDateTime(q.updatedSince, "updatedSince")).toISOString();
    const page = q.page ?? 1;
    const pageSize = q.pageSize ?? 100;
    const { rows, total } = await listDocumentPage(this.d.db.reader, collection.id, {
      page,
      pageSize,
      status: q.status,
      updatedSince: since,
    });
    const states = await sourceFetchesOf(
      this.d.db.reader,
      rows.filter(mayHaveFetchState).map((r) => r.id),
    );
    return { documents: rows.map((r) => presentDocument(r, states.get(r.id))), page, pageSize, total };
  }

  async get(collection: Collection, externalId: string): Promise<DocumentOut> {
    const doc = await this.find(collection, externalId);
    return presentDocument(doc, await fetchStateOf(this.d.db.reader, doc));
  }

  /** Removes the document, its chunks (every generation) and its file. */
  async remove(collection: Collection, externalId: string) {
    const doc = await this.find(collection, externalId);
    await this.d.engine.removeDocument(collection.id, doc.id);
    return { deleted: true as const, id: doc.id, externalId: doc.externalId! };
  }

  private async find(collection: Collection, externalId: string): Promise<DocumentRow> {
    const doc = await findDocumentByExternalId(this.d.db.reader, collection.id, checkExternalId(externalId));
    if (!doc) throw notFound("document");
    return doc;
  }

  private context(collection: Collection, prefix: string) {
    const disk = this.d.disk;
    return {
      collectionId: collection.id,
      prefix,
      filePathOf: disk && ((id: string) => disk.pathOf(collection.id, id)),
      fetchRules: this.d.config,
    };
  }

  private async apply(plan: UpsertPlan) {
    return this.answerStored(plan, await this.d.engine.upsertDocument(plan));
  }

  /** The answer to a stored upsert; a metadata-only change first reaches the chunk rows. */
  private async answerStored(plan: UpsertPlan, done: Upserted | null) {
    if (!done) throw notFound("pipeline");
    // On disk the replaced file went inside the commit; a bucket's object goes now (if
    // the store fails here, no row names it and the next start's reconciliation removes it).
    if (done.formerFile && !this.d.disk)
      await this.d.files.remove(done.row.collectionId, done.formerFile).catch(() => {});
    // Only the labels changed: the chunk rows get them in place, nothing is embedded again.
    if (done.metadataChanged) await this.d.vectorStore.rewriteMetadata(done.row.collectionId, done.row.id);
    void rewriteLinkedChunks(this.d.vectorStore, done.row.collectionId, done.linked ?? [], this.d.log);
    return this.answer(plan.externalId, done);
  }

  async answer(externalId: string, u: Upserted) {
    return {
      externalId,
      status: u.status,
      unchanged: u.status === "unchanged",
      metadataChanged: u.metadataChanged,
      source: presentDocument(u.row, await fetchStateOf(this.d.db.reader, u.row)),
    };
  }
}

/**
 * The fetch state a source's answer shows: a text or stored file source has none, so it
 * costs no query; with 500 items a batch, that query was a sixth of the main thread's time.
 */
async function fetchStateOf(db: Db, row: DocumentRow): Promise<SourceFetch | undefined> {
  return mayHaveFetchState(row) ? findSourceFetch(db, row.id) : undefined;
}

/** A refused batch item's result. */
function failed(externalId: string | null, error: unknown): BatchItemOut {
  const err =
    error instanceof UpsertRefused
      ? new AppError("invalid_request", error.message, [{ field: error.field, message: error.reason }])
      : error;
  if (!(err instanceof AppError)) throw err;
  return {
    externalId,
    status: "error",
    error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
  };
}
