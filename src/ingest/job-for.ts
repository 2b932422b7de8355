/** The worker's job for a claimed task: what to read, how to chunk, which model, which limits. */
import type { Config } from "../config";
import type { Db } from "../db/client";
import { findCollectionById } from "../db/repo/collections";
import { findDocumentById, findDocumentText, markDocumentProcessing } from "../db/repo/documents";
import type { Collection, Task } from "../db/schema";
import type { FileStore } from "../files/store";
import { recordSourceEvent } from "./events";
import { isSettled, modelOf } from "./generations";
import { joinCredentials } from "../tools/url-credentials";
import type { Job } from "./job";

export interface JobSettings {
  files: FileStore;
  config: Pick<Config, "ollamaUrl" | "openaiUrl" | "openaiKey" | "fetchAllow" | "fetchDeny" | "maxUploadMb">;
}

/**
 * Collections read at most once each: the tasks of a scheduling step mostly share a
 * collection, and nothing in the step changes it.
 */
export function collectionsOnce(db: Db): (id: string) => Collection | undefined {
  const cols = new Map<string, Collection | undefined>();
  return (id) => {
    if (!cols.has(id)) cols.set(id, findCollectionById(db, id));
    return cols.get(id);
  };
}

/**
 * Marks the document processing and builds its job; null when the document or its
 * collection is gone. `collectionOf` lets a scheduling step read each collection once.
 */
export function jobFor(
  db: Db,
  task: Task,
  d: JobSettings,
  collectionOf: (id: string) => Collection | undefined = (id) => findCollectionById(db, id),
): Job | null {
  const doc = findDocumentById(db, task.documentId);
  const col = collectionOf(task.collectionId);
  if (!doc || !col) return null;
  const now = Date.now();
  markDocumentProcessing(db, doc.id, new Date(now).toISOString());
  recordSourceEvent(db, "source.processing", doc.id, {}, now);
  return {
    jobId: task.id,
    document: {
      id: doc.id,
      type: doc.type,
      content: doc.type === "text" ? findDocumentText(db, doc.id) : null,
      url: doc.url && joinCredentials(doc.url, doc.urlCredentials),
      fileName: doc.fileName,
      fileSize: doc.fileSize,
      filePath: doc.filePath ? d.files.pathOf(col.id, doc.id) : null,
      // Only a settled index still holds the chunks of that hash, for the job to keep.
      indexedHash: isSettled(col, task.generation) && doc.chunkCount > 0 ? doc.contentHash : null,
    },
    chunking: {
      strategy: col.chunkingStrategy as Job["chunking"]["strategy"],
      size: col.chunkSize,
      overlap: col.chunkOverlap,
    },
    model: modelOf(col, task.generation),
    embed: {
      ollamaUrl: d.config.ollamaUrl,
      openaiUrl: d.config.openaiUrl,
      openaiKey: d.config.openaiKey,
      batchSize: 32,
    },
    fetch: {
      allow: d.config.fetchAllow,
      deny: d.config.fetchDeny,
      maxBytes: d.config.maxUploadMb * 1024 * 1024,
      timeoutMs: 30_000,
    },
  };
}
