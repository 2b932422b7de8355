/**
 * What a job is and what it says: the messages between the main thread and a worker
 * (run/job.ts runs a job). Apart from it so that the readers a job runs (crawl/, folder/,
 * git/, bucket/), the tasks' claims and endings, the sink and the pool name them without
 * importing what runs them.
 */
import type { EmbedCall } from "../embed/calls";
import type { Embedder } from "../embed/types";
import type { DocumentRow, SourceFetch } from "../db/schema";
import type { ChunkRow } from "../vectors/tables";
import type { BucketJob, BucketObjectRef } from "./bucket/types";
import type { CrawlEvent, CrawlJob } from "./crawl/types";
import type { Validators } from "./fetch/index";
import type { FolderEvent, FolderFileRef, FolderJob } from "./folder/types";
import type { GitEvent, GitFileRef, GitJob } from "./git/types";
import type { OcrThread } from "./ocr/client";
import type { ChunkOptions, Extracted } from "./types";

export interface JobDocument {
  id: string;
  type: "text" | "file" | "url" | "api" | "folder" | "s3" | "git";
  content: string | null;
  url: string | null;
  fileName: string | null;
  fileSize: number | null;
  /** Where the stored file is read: FileStore.readLocation, a path or a URL. */
  fileLocation: string | null;
  /**
   * url/api: the hash of the text already indexed in the task's generation, if any.
   * When the fetched text hashes the same, the job ends `unchanged` and embeds nothing.
   */
  indexedHash?: string | null;
  /** url/api with `indexedHash`: the validators of the answer it came from, for a conditional request. */
  validators?: Validators | null;
  /** A folder source's file: read from its folder (folder/read.ts), not from the file store. */
  folderFile?: FolderFileRef | null;
  /** A Git source's file: its blob read from the source's clone (git/read.ts). */
  gitFile?: GitFileRef | null;
  /** A bucket source's object: read from its bucket (bucket/s3.ts), not from the file store. */
  bucketObject?: BucketObjectRef | null;
}

export interface Job {
  jobId: string;
  document: JobDocument;
  chunking: ChunkOptions;
  model: string;
  /** The language setting the generation's text is analysed with (text/languages.ts); `legacy`: not analysed. */
  language: string;
  embed: { ollamaUrl: string; openaiUrl: string | null; openaiKey: string | null; batchSize: number };
  fetch: { allow: string[]; deny: string[]; maxBytes: number; timeoutMs: number };
  /** Images and scanned PDF pages (docs/API.md, "OCR"); language data files are under dataDir/ocr. */
  ocr: { languages: string[]; pageTimeoutMs: number; dataDir: string };
  /** A crawl source: the job crawls (crawl/run.ts) instead of indexing one page. */
  crawl?: CrawlJob | null;
  /** A folder source: the job walks its folder (folder/scan.ts) instead of indexing a file. */
  folder?: FolderJob | null;
  /** A Git source: the job fetches its branch and finds what changed (git/scan.ts). */
  git?: GitJob | null;
  /** A bucket source: the job lists its bucket (bucket/list.ts) instead of indexing an object. */
  bucket?: BucketJob | null;
}

/** One chunk row as the vector store takes it. */
export type RowOut = ChunkRow;

/** What the main thread sends a worker. */
export type ToWorker =
  | { type: "job"; job: Job }
  | { type: "ack"; jobId: string }
  | { type: "cancel"; jobId: string }
  | { type: "ping" }
  /** Lowers the worker thread's CPU priority by `nice` (run/thread-priority.ts). */
  | { type: "priority"; nice: number };

/** What a job gets from the worker that runs it. */
export interface JobContext {
  embedder: Embedder;
  signal: AbortSignal;
  /** Resolves once `n` slices of rows have been committed by the main thread. */
  committed: (n: number) => Promise<void>;
  /** The worker's OCR thread, shared by its jobs (one page at a time). */
  ocr: OcrThread;
}

/** The stages a job runs in the worker; the main thread adds "write" (committing its rows). */
export type Stage = "fetch" | "extract" | "chunk" | "embed";
/** Seconds a job spent in each stage it reached (/metrics). */
export type StageTimes = Partial<Record<Stage, number>>;

export type JobEvent =
  | { type: "progress"; jobId: string; done: number; total: number; unit?: "pages" }
  | { type: "rows"; jobId: string; rows: RowOut[]; first: boolean }
  | {
      type: "done";
      jobId: string;
      chunkCount: number;
      dimensions: number;
      contentHash: string | null;
      /** Set when OCR read some of the text. */
      ocr: Extracted["ocr"] | null;
      validators?: Validators | null;
      stages?: StageTimes;
    }
  | { type: "unchanged"; jobId: string; contentHash: string; validators?: Validators | null; stages?: StageTimes }
  | CrawlEvent
  | FolderEvent
  | GitEvent
  | { type: "error"; jobId: string; message: string; transient: boolean; detail?: string; stages?: StageTimes };

/** Everything a worker posts: its jobs' events, its answer to a ping, and its embedding calls. */
/** `stopped`: a cancelled job has ended in the worker (or was dropped before it began). */
export type FromWorker =
  | JobEvent
  | { type: "pong" }
  | { type: "embed"; call: EmbedCall }
  | { type: "stopped"; jobId: string };

/** A parent source (folder, bucket or Git) as its files' claims read it (tasks/linked-parent.ts). */
export interface LinkedParent {
  doc: DocumentRow;
  state: SourceFetch | undefined;
}
