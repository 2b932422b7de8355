/**
 * Knowledge bases: the second face of the engine. A knowledge base is a
 * collection of kind "kb" with default chunking; its documents are uploaded as
 * multipart files and processed by the same tasks, workers and index.
 */
import { checkLanguage } from "../pipelines/service";
import { AUTO } from "../../text/languages";
import type { Config } from "../../config";
import { type Metadata, metadataProblems, parseStoredMetadata } from "../../core/metadata";
import type { Collections } from "../../core/collections";
import { findCollection, insertCollection, listCollections, type CollectionWithStats } from "../../db/repo/collections";
import { findDocument, listDocuments } from "../../db/repo/documents";
import type { Collection, DocumentRow, User } from "../../db/schema";
import type { Store } from "../../db/store";
import type { FileStore } from "../../files/store";
import { MULTIPART_OVERHEAD, type MultipartBody, type ReceivedFile, receiveFile } from "../../files/multipart";
import { refuseDuplicateFile } from "../../core/duplicates";
import { AppError, notFound } from "../../http/errors";
import type { IngestEngine } from "../../ingest/engine";
import { detectKind } from "../../ingest/extract/detect";
import { firstGeneration } from "../../ingest/generations";
import { ExtractionError } from "../../ingest/extract/errors";
import { scrubMessage } from "../../tools/scrub";
import type { SearchRequest } from "../../retrieval/request";
import type { Searcher } from "../../retrieval/searcher";
import { ensureRoom } from "../../tools/disk";
import type { QueryLog } from "../insight/query-log";
import type { Kb, KbDocument } from "./schemas";

export interface KbDeps {
  db: Store;
  collections: Collections;
  engine: IngestEngine;
  files: FileStore;
  searcher: Searcher;
  /** Where searches are recorded when the knowledge base's query log is on. */
  queryLog: QueryLog;
  config: Pick<Config, "defaultEmbeddingModel" | "maxUploadMb" | "dataDir" | "minFreeMb">;
}

const presentKb = (c: CollectionWithStats): Kb => ({
  id: c.row.id,
  name: c.row.name,
  description: c.row.description,
  documentCount: Number(c.sourceCount),
  language: c.row.language,
  created_at: c.row.createdAt,
});

const presentDoc = (d: DocumentRow): KbDocument => ({
  id: d.id,
  kbId: d.collectionId,
  fileName: d.fileName ?? d.name,
  fileSize: d.fileSize ?? 0,
  status: d.status,
  error: d.error,
  chunkCount: d.chunkCount,
  created_at: d.createdAt,
  metadata: parseStoredMetadata(d.metadata),
  ...(d.ocr ? { ocr: JSON.parse(d.ocr) as NonNullable<KbDocument["ocr"]> } : {}),
});

/** The optional `metadata` part of an upload: a JSON object under the metadata rules; 400 naming the problem. */
function uploadMetadata(fields: Record<string, string>): Metadata | undefined {
  const raw = fields.metadata;
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new AppError("invalid_request", "metadata: must be a JSON object", [
      { field: "metadata", message: "must be a JSON object" },
    ]);
  }
  const problems = metadataProblems(value);
  if (problems.length)
    throw new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems);
  return value as Metadata;
}

export class KbService {
  constructor(private readonly d: KbDeps) {}

  async list(user: User): Promise<Kb[]> {
    const query = { userId: user.id, kind: "kb" as const, limit: 10_000, offset: 0 };
    return (await listCollections(this.d.db.reader, query)).rows.map(presentKb);
  }

  async create(user: User, body: { name: string; description?: string | null; language?: string }): Promise<Kb> {
    const now = new Date().toISOString();
    const id = Bun.randomUUIDv7();
    const model = this.d.config.defaultEmbeddingModel;
    checkLanguage(body.language);
    const language = body.language ?? AUTO;
    await this.d.db.atomically((tx) =>
      insertCollection(tx, {
        id,
        userId: user.id,
        kind: "kb",
        name: body.name,
        description: body.description ?? null,
        chunkingStrategy: "recursive",
        chunkSize: 1000,
        chunkOverlap: 200,
        embeddingModel: model,
        language,
        ...firstGeneration(model, language),
        vectorProvider: "lancedb",
        retrievalTopK: 5,
        createdAt: now,
        updatedAt: now,
      }),
    );
    return presentKb(await this.find(user, id));
  }

  async find(user: User, id: string): Promise<CollectionWithStats> {
    const kb = await findCollection(this.d.db.reader, user.id, "kb", id);
    if (!kb) throw notFound("knowledge base");
    return kb;
  }

  async detail(user: User, id: string) {
    const kb = await this.find(user, id);
    return { ...presentKb(kb), documents: (await listDocuments(this.d.db.reader, id)).map(presentDoc) };
  }

  async remove(user: User, id: string) {
    await this.find(user, id);
    await this.d.collections.deleteCollection(id);
    return { deleted: true as const, id };
  }

  /** Streams the upload to disk, checks its type, then queues it: 202 with the document. */
  async upload(user: User, id: string, form: MultipartBody): Promise<KbDocument> {
    const kb = (await this.find(user, id)).row;
    await this.d.engine.requireRoom();
    const limit = this.d.config.maxUploadMb * 1024 * 1024;
    // A declared length over the limit is 413 before a byte is read.
    if ((form.contentLength ?? 0) > limit + MULTIPART_OVERHEAD)
      throw new AppError("payload_too_large", `files larger than ${limit} bytes are not accepted`);
    // 507 up front when the body (its declared length) would take the disk under RAGD_MIN_FREE_MB.
    ensureRoom(this.d.config.dataDir, this.d.config.minFreeMb, form.contentLength ?? 0);
    const docId = Bun.randomUUIDv7();
    let file: ReceivedFile;
    let hash = "";
    let metadata: Metadata | undefined;
    try {
      file = await receiveFile(form, "file", async (body) => {
        const saved = await this.d.files.save(kb.id, docId, body, limit);
        hash = saved.hash;
        return saved.size;
      });
      metadata = uploadMetadata(file.fields);
      detectKind(file.head, { contentType: file.mimeType, fileName: file.fileName });
    } catch (err) {
      await this.d.files.remove(kb.id, docId);
      if (err instanceof ExtractionError) throw new AppError("unsupported_media_type", scrubMessage(err.message));
      throw err;
    }
    let row: DocumentRow | null;
    try {
      const draft = {
        id: docId,
        collectionId: kb.id,
        type: "file" as const,
        name: file.fileName.slice(0, 200),
        fileName: file.fileName.slice(0, 255),
        fileSize: file.size,
        filePath: docId,
        contentHash: hash,
        metadata,
      };
      // Refused in the transaction that stores the row: two uploads of one file cannot both be kept.
      row = await this.d.engine.createDocument(draft, undefined, (t) => refuseDuplicateFile(t, kb.id, docId, hash));
    } catch (err) {
      await this.d.files.remove(kb.id, docId);
      throw err;
    }
    if (!row) {
      // Deleted while the bytes arrived.
      await this.d.files.remove(kb.id, docId);
      await this.d.files.removeCollectionIfEmpty(kb.id);
      throw notFound("knowledge base");
    }
    return presentDoc(row);
  }

  async removeDocument(user: User, id: string, docId: string) {
    await this.find(user, id);
    const doc = await findDocument(this.d.db.reader, id, docId);
    if (!doc) throw notFound("document");
    await this.d.engine.removeDocument(id, doc.id);
    return { deleted: true as const, id: doc.id };
  }

  /** Searches one of the user's knowledge bases: the query endpoint's answer, with kbId. */
  async search(user: User, id: string, body: SearchRequest) {
    return this.searchAs((await this.find(user, id)).row, body, null, null);
  }

  /** Searches a knowledge base for a key of it (or a token of that key), held to the key's `access`. */
  async searchAs(kb: Collection, body: SearchRequest, access: string | null, keyId: string | null) {
    const search = () => this.d.searcher.search(kb, body, undefined, access);
    const { results, query, topK, ...rest } = await this.d.queryLog.around(kb, { door: "kb", keyId }, body, search);
    return { results, kbId: kb.id, query, topK, ...rest };
  }
}
