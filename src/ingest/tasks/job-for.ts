/** The worker's job for a claimed task: what to read, how to chunk, which model, which limits. */
import type { Config } from "../../config";
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
import { findDocumentText } from "../../db/repo/documents";
import type { Collection, DocumentRow, Task } from "../../db/schema";
import type { FileStore } from "../../files/store";
import { isSettled, modelOf, languageOf } from "../generations";
import { joinCredentials } from "../../tools/url-credentials";
import type { Job } from "../job-types";
import type { CrawlJob } from "../crawl/types";
import type { CrawlSettings } from "../../core/fetch-settings";
import { crawledPagesOf, findSourceFetch } from "../../db/repo/source-fetches";
import type { SourceFetch } from "../../db/schema";
import { folderJob } from "../folder/job-of";
import { gitJob } from "../git/job-of";
import { bucketJob } from "../bucket/job-of";
import { linkedFileOf } from "./linked-parent";

/** A crawl source's crawl: its settings and the validators of the pages it holds; null for a single page. */
async function crawlJob(
  db: Db,
  documentId: string,
  state: SourceFetch | undefined,
  settled: boolean,
  config: JobSettings["config"],
): Promise<CrawlJob | null> {
  if (!state?.crawl) return null;
  const settings = JSON.parse(state.crawl) as CrawlSettings;
  const times = { delayMs: config.crawlDelayMs, budgetMs: config.crawlBudgetMs };
  // A re-index rebuilds the pages from their stored text: the crawl itself waits for its next sync.
  if (!settled) return { settings, known: {}, ...times, skip: true };
  const known: CrawlJob["known"] = {};
  for (const p of await crawledPagesOf(db, documentId)) known[p.url] = { etag: p.etag, lastModified: p.lastModified };
  return { settings, known, ...times };
}

export interface JobSettings {
  files: FileStore;
  config: Pick<
    Config,
    | "ollamaUrl"
    | "openaiUrl"
    | "openaiKey"
    | "fetchAllow"
    | "fetchDeny"
    | "maxUploadMb"
    | "ocrLanguages"
    | "ocrPageTimeoutMs"
    | "dataDir"
    | "crawlDelayMs"
    | "crawlBudgetMs"
    | "folderRoots"
  >;
}

/**
 * Collections read at most once each: the tasks of a scheduling step mostly share a
 * collection, and nothing in the step changes it.
 */
export function collectionsOnce(db: Db): (id: string) => Promise<Collection | undefined> {
  const cols = new Map<string, Promise<Collection | undefined>>();
  return (id) => {
    let col = cols.get(id);
    if (!col) cols.set(id, (col = findCollectionById(db, id)));
    return col;
  };
}

/**
 * The job of a claimed task, from its document and collection as read (the caller
 * marks the document processing). `text` is a text source's stored content; a crawled
 * page's is read here.
 */
export async function buildJob(
  db: Db,
  task: Task,
  doc: DocumentRow,
  col: Collection,
  text: string | null,
  d: JobSettings,
): Promise<Job> {
  // A file without a stored file is a folder's, a repository's or a bucket's (folder/, git/,
  // bucket/job-of.ts): its row links it to its source.
  const linked =
    doc.type === "url" ||
    doc.type === "api" ||
    doc.type === "folder" ||
    doc.type === "git" ||
    doc.type === "s3" ||
    (doc.type === "file" && !doc.filePath);
  const fetchState = linked ? await findSourceFetch(db, doc.id) : undefined;
  const { gitFile, bucketObject, folderFile } = await linkedFileOf(db, doc, fetchState, d.config);
  // Only a settled index still holds the chunks of that hash, for the job to keep.
  const indexedHash = isSettled(col, task.generation) && doc.chunkCount > 0 ? doc.contentHash : null;
  return {
    // A claim's own: a task reclaimed after its lease ran out runs again under another id.
    jobId: `${task.id}:${task.attempts}`,
    document: {
      id: doc.id,
      type: doc.type,
      // A crawled page is indexed from the text its crawl stored.
      content:
        doc.type === "text"
          ? text
          : doc.type === "url" && fetchState?.crawlSourceId
            ? await findDocumentText(db, doc.id)
            : null,
      url: doc.url && joinCredentials(doc.url, doc.urlCredentials),
      fileName: doc.fileName,
      fileSize: doc.fileSize,
      // filePath names the stored file: the document id on disk, its own object name in a bucket (upsert.ts).
      fileLocation: doc.filePath ? d.files.readLocation(col.id, doc.filePath) : null,
      indexedHash,
      validators: indexedHash && fetchState ? { etag: fetchState.etag, lastModified: fetchState.lastModified } : null,
      folderFile,
      gitFile,
      bucketObject,
    },
    crawl:
      doc.type === "url" ? await crawlJob(db, doc.id, fetchState, isSettled(col, task.generation), d.config) : null,
    folder:
      doc.type === "folder"
        ? await folderJob(db, doc.id, fetchState, isSettled(col, task.generation), d.config.folderRoots)
        : null,
    bucket:
      doc.type === "s3" ? bucketJob(doc, fetchState, isSettled(col, task.generation), d.config.crawlBudgetMs) : null,
    git: doc.type === "git" ? await gitJob(db, doc, fetchState, isSettled(col, task.generation), d.config) : null,
    chunking: {
      strategy: col.chunkingStrategy as Job["chunking"]["strategy"],
      size: col.chunkSize,
      overlap: col.chunkOverlap,
    },
    model: modelOf(col, task.generation),
    language: languageOf(col, task.generation),
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
    ocr: {
      languages: col.ocrLanguages ?? d.config.ocrLanguages,
      pageTimeoutMs: d.config.ocrPageTimeoutMs,
      dataDir: d.config.dataDir,
    },
  };
}
