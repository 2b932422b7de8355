/**
 * One ingestion job, as a worker runs it: get the bytes, extract text, chunk,
 * embed in batches, and hand rows back in slices as they are ready. Pure of
 * SQLite and LanceDB: the main thread owns both (one writer per table).
 */
import { readFile } from "node:fs/promises";
import { isBuiltinModel } from "../embed/models";
import { EmbeddingError, type Embedder } from "../embed/types";
import { sha256 } from "../tools/crypto";
import { chunkText } from "./chunk/index";
import { ExtractionError, extract } from "./extract/index";
import { FetchError, safeFetch } from "./fetch/index";
import type { ChunkRow } from "../vectors/tables";
import type { Chunk, ChunkOptions, Extracted } from "./types";

export interface JobDocument {
  id: string;
  type: "text" | "file" | "url" | "api";
  content: string | null;
  url: string | null;
  fileName: string | null;
  fileSize: number | null;
  filePath: string | null;
  /**
   * url/api: the hash of the text already indexed in the task's generation, if any.
   * When the fetched text hashes the same, the job ends `unchanged` and embeds nothing.
   */
  indexedHash?: string | null;
}

export interface Job {
  jobId: string;
  document: JobDocument;
  chunking: ChunkOptions;
  model: string;
  embed: { ollamaUrl: string; openaiUrl: string | null; openaiKey: string | null; batchSize: number };
  fetch: { allow: string[]; deny: string[]; maxBytes: number; timeoutMs: number };
}

/** Which of a worker's embedders a job uses: one per model and backend settings. */
export const embedderKey = (job: Job): string => JSON.stringify([job.model, job.embed]);

/** One chunk row as the vector store takes it. */
export type RowOut = ChunkRow;

/** What the main thread sends a worker. */
export type ToWorker =
  | { type: "job"; job: Job }
  | { type: "ack"; jobId: string }
  | { type: "cancel"; jobId: string }
  | { type: "ping" };

/** What a job gets from the worker that runs it. */
export interface JobContext {
  embedder: Embedder;
  signal: AbortSignal;
  /** Resolves once `n` slices of rows have been committed by the main thread. */
  committed: (n: number) => Promise<void>;
}

export type JobEvent =
  | { type: "progress"; jobId: string; done: number; total: number }
  | { type: "rows"; jobId: string; rows: RowOut[]; first: boolean }
  | { type: "done"; jobId: string; chunkCount: number; dimensions: number; contentHash: string | null }
  | { type: "unchanged"; jobId: string; contentHash: string }
  | { type: "error"; jobId: string; message: string; transient: boolean };

/** Rows handed back per message: bounds the memory a big document holds at once. */
const SLICE = 512;
/** Progress within a slice is sent at most this often. */
const PROGRESS_EVERY_MS = 250;

async function textOf(job: Job): Promise<Extracted> {
  const d = job.document;
  if (d.type === "text") return { text: d.content ?? "", kind: "text" };
  if (d.type === "file") {
    const bytes = new Uint8Array(await readFile(d.filePath!));
    return extract(bytes, { fileName: d.fileName ?? undefined });
  }
  const accept = d.type === "api" ? "application/json, */*;q=0.5" : "text/html, application/pdf, */*;q=0.5";
  const res = await safeFetch(d.url!, { ...job.fetch, accept });
  const hints = { contentType: res.contentType, url: res.finalUrl };
  // An api source is JSON by contract, whatever the server labels it.
  return extract(
    res.bytes,
    d.type === "api" && !/json/i.test(res.contentType) ? { ...hints, contentType: "application/json" } : hints,
  );
}

/**
 * Runs a job to the end, reporting through `emit`; never throws. At most two
 * slices of rows are uncommitted at a time, which bounds memory on big documents.
 */
export async function runJob(
  job: Job,
  emit: (e: JobEvent, transfer?: ArrayBuffer[]) => void,
  ctx: JobContext,
): Promise<void> {
  try {
    const extracted = await textOf(job);
    // Text and files are hashed where they arrive; a fetched source only once it is extracted.
    const fetched = job.document.type === "url" || job.document.type === "api";
    const contentHash = fetched ? sha256(extracted.text) : null;
    if (contentHash !== null && contentHash === job.document.indexedHash)
      return emit({ type: "unchanged", jobId: job.jobId, contentHash });
    const chunks = chunkText(extracted.text, job.chunking);
    if (chunks.length === 0) throw new ExtractionError(`no text found in the ${extracted.kind} content`);
    const embedder = ctx.embedder;
    // With the built-in embedder a document of one slice is done within milliseconds of
    // starting: its progress would cost two writes that nobody sees.
    const report = chunks.length > SLICE || !isBuiltinModel(embedder.name);
    if (report) emit({ type: "progress", jobId: job.jobId, done: 0, total: chunks.length });
    // A remote model reports batches as they come back: progress moves within a slice too.
    let sent = 0;
    const tell = (done: number) => {
      if (!report || performance.now() - sent < PROGRESS_EVERY_MS) return;
      sent = performance.now();
      emit({ type: "progress", jobId: job.jobId, done, total: chunks.length });
    };
    let first = true;
    for (let i = 0, slices = 0; i < chunks.length; i += SLICE, slices++) {
      await ctx.committed(slices - 1);
      if (ctx.signal.aborted) return;
      const slice = chunks.slice(i, i + SLICE);
      let embedded = 0;
      const vectors = await embedder.embed(
        slice.map((c) => c.text),
        undefined,
        (_from, count) => tell(i + (embedded += count)),
      );
      const rows = slice.map((c, k) => toRow(job.document.id, c, vectors[k]!));
      emit({ type: "rows", jobId: job.jobId, rows, first }, [
        ...new Set(rows.map((r) => r.vector.buffer as ArrayBuffer)),
      ]);
      first = false;
      // After the last slice the outcome itself says every chunk is done.
      if (report && i + SLICE < chunks.length)
        emit({ type: "progress", jobId: job.jobId, done: i + SLICE, total: chunks.length });
    }
    const dimensions = await embedder.dimensions();
    emit({ type: "done", jobId: job.jobId, chunkCount: chunks.length, dimensions, contentHash });
  } catch (err) {
    emit({ type: "error", jobId: job.jobId, ...describe(err) });
  }
}

function toRow(documentId: string, c: Chunk, vector: Float32Array): RowOut {
  return {
    id: `${documentId}:${c.index}`,
    documentId,
    chunkIndex: c.index,
    text: c.text,
    start: c.start,
    end: c.end,
    vector,
  };
}

/** A failure as a sentence a person can act on, and whether retrying may help. */
export function describe(err: unknown): { message: string; transient: boolean } {
  if (err instanceof EmbeddingError) return { message: err.message, transient: err.transient };
  if (err instanceof FetchError) return { message: err.message, transient: err.transient };
  if (err instanceof ExtractionError) return { message: err.message, transient: false };
  const e = err as NodeJS.ErrnoException;
  if (e?.code === "ENOENT")
    return { message: "the uploaded file is missing from the data directory", transient: false };
  return { message: `ingestion failed: ${e?.message ?? String(err)}`, transient: false };
}
