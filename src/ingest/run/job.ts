/**
 * One ingestion job, as a worker runs it: get the bytes, extract text, chunk,
 * embed in batches, and hand rows back in slices as they are ready. Pure of
 * SQLite and LanceDB: the main thread owns both (one writer per table).
 */
import { analyseForIndex } from "../../text/analyze";
import { DocumentLanguages } from "../../text/detect";
import { LEGACY } from "../../text/languages";
import { isBuiltinModel } from "../../embed/models";
import { EmbeddingError } from "../../embed/types";
import { readStoredFile } from "../../files/read";
import { sha256 } from "../../tools/crypto";
import { chunkText } from "../chunk/index";
import { ExtractionError, extract, type Ocr } from "../extract/index";
import { runCrawl } from "../crawl/run";
import { readFolderFile } from "../folder/read";
import { runFolderScan } from "../folder/scan";
import { FolderError } from "../folder/types";
import { readGitFile } from "../git/read";
import { runGitSync } from "../git/scan";
import { GitError } from "../git/types";
import { runBucketList } from "../bucket/list";
import { readObject } from "../bucket/s3";
import { BucketError, type BucketJob } from "../bucket/types";
import { FetchError, safeFetch, type Validators } from "../fetch/index";
import { chunkId } from "../../vectors/chunk-id";
import type { Chunk, Extracted } from "../types";
import type { Job, RowOut, JobContext, Stage, StageTimes, JobEvent } from "../job-types";

/** Rows handed back per message: bounds the memory a big document holds at once. */
const SLICE = 512;
/** Progress within a slice is sent at most this often. */
const PROGRESS_EVERY_MS = 250;

/** Runs `step`, adding its seconds to `stage` in `times` (also when it throws). */
async function timed<T>(times: StageTimes, stage: Stage, step: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    times[stage] = (times[stage] ?? 0) + (performance.now() - started) / 1000;
  }
}

/** OCR for one job: its pages go to the worker's OCR thread, their progress to the source. */
function ocrFor(job: Job, emit: (e: JobEvent) => void, ctx: JobContext): Ocr {
  const { languages, pageTimeoutMs, dataDir } = job.ocr;
  return {
    languages,
    recognize: (image, label, opts) =>
      ctx.ocr.run({ image, languages, dataDir, ...opts }, label, pageTimeoutMs, ctx.signal),
    progress: (done, total) => emit({ type: "progress", jobId: job.jobId, done, total, unit: "pages" }),
  };
}

/** The text to index; `extracted` null when a conditional fetch answered 304 (nothing changed). */
interface Got {
  extracted: Extracted | null;
  validators: Validators | null;
}

/** The document's text: its bytes read or fetched ("fetch"), then extracted ("extract"). */
async function textOf(job: Job, ocr: Ocr, times: StageTimes, signal: AbortSignal): Promise<Got> {
  const d = job.document;
  if (d.type === "text") return { extracted: { text: d.content ?? "", kind: "text" }, validators: null };
  // A crawled page: its crawl fetched and extracted the text already.
  if (d.content !== null) return { extracted: { text: d.content, kind: "html" }, validators: null };
  if (d.type === "file") {
    const bytes = await timed(times, "fetch", async () =>
      d.gitFile
        ? readGitFile(d.gitFile)
        : d.bucketObject
          ? readObject(d.bucketObject, d.bucketObject.path, job.fetch, d.bucketObject.settings.maxFileMb * 1024 * 1024)
          : d.folderFile
            ? readFolderFile(d.folderFile)
            : readStoredFile(d.fileLocation!),
    );
    const extracted = await timed(times, "extract", () =>
      extract(bytes, { fileName: d.fileName ?? undefined }, ocr, signal),
    );
    return { extracted, validators: null };
  }
  const accept = d.type === "api" ? "application/json, */*;q=0.5" : "text/html, application/pdf, */*;q=0.5";
  const res = await timed(times, "fetch", () => safeFetch(d.url!, { ...job.fetch, accept, validators: d.validators }));
  if (res.notModified) return { extracted: null, validators: res.validators };
  const hints = { contentType: res.contentType, url: res.finalUrl };
  // An api source is JSON by contract, whatever the server labels it.
  const asJson = d.type === "api" && !/json/i.test(res.contentType);
  const extracted = await timed(times, "extract", () =>
    extract(res.bytes, asJson ? { ...hints, contentType: "application/json" } : hints, ocr, signal),
  );
  return { extracted, validators: res.validators };
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
  const stages: StageTimes = {};
  try {
    if (job.crawl) return await runCrawl(job, job.crawl, emit, ctx.signal);
    if (job.folder) return await runFolderScan(job.jobId, job.folder, emit, ctx.signal);
    if (job.git) return await runGitSync(job.jobId, job.git, emit, ctx.signal);
    if (job.document.type === "s3") return await runBucketList(job.jobId, bucketOf(job), job.fetch, emit, ctx.signal);
    const { extracted, validators } = await textOf(job, ocrFor(job, emit, ctx), stages, ctx.signal);
    const indexed = job.document.indexedHash;
    if (extracted === null && indexed)
      return emit({ type: "unchanged", jobId: job.jobId, contentHash: indexed, validators, stages });
    if (extracted === null)
      throw new FetchError(`${job.document.url} answered 304 to a request that was not conditional`, false);
    // Text and files are hashed where they arrive; a fetched source only once it is extracted.
    const fetched = job.document.type === "url" || job.document.type === "api";
    const contentHash = fetched ? sha256(extracted.text) : null;
    if (contentHash !== null && contentHash === indexed)
      return emit({ type: "unchanged", jobId: job.jobId, contentHash, validators, stages });
    const chunks = await timed(stages, "chunk", () => chunkText(extracted.text, job.chunking));
    if (chunks.length === 0) throw new ExtractionError(`no text found in the ${extracted.kind} content`);
    const embedder = ctx.embedder;
    const builtin = isBuiltinModel(embedder.name);
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
    // A chunk of a few words takes the language its document's earlier chunks had (text/detect.ts).
    const languages = new DocumentLanguages();
    for (let i = 0, slices = 0; i < chunks.length; i += SLICE, slices++) {
      await ctx.committed(slices - 1);
      if (ctx.signal.aborted) return;
      const slice = chunks.slice(i, i + SLICE);
      // Analysed once: the index's terms and what a built-in embedder reads come from one split into words.
      const analysed = slice.map((c) =>
        job.language === LEGACY ? null : analyseForIndex(c.text, job.language, builtin, languages),
      );
      let embedded = 0;
      const vectors = await timed(stages, "embed", () =>
        embedder.embed(
          analysed.map((a, k) => a?.embedded ?? slice[k]!.text),
          undefined,
          (_from, count) => tell(i + (embedded += count)),
        ),
      );
      const rows = slice.map((c, k) => toRow(job.document.id, c, vectors[k]!, analysed[k]!));
      emit({ type: "rows", jobId: job.jobId, rows, first }, [
        ...new Set(rows.map((r) => r.vector.buffer as ArrayBuffer)),
      ]);
      first = false;
      // After the last slice the outcome itself says every chunk is done.
      if (report && i + SLICE < chunks.length)
        emit({ type: "progress", jobId: job.jobId, done: i + SLICE, total: chunks.length });
    }
    const dimensions = await embedder.dimensions();
    const ocr = extracted.ocr ?? null;
    emit({
      type: "done",
      jobId: job.jobId,
      chunkCount: chunks.length,
      dimensions,
      contentHash,
      ocr,
      validators,
      stages,
    });
  } catch (err) {
    emit({ type: "error", jobId: job.jobId, ...describe(err), stages });
  }
}

type Analysed = ReturnType<typeof analyseForIndex>;

/** A chunk's row; with a language setting, its text analysed for the full-text index (text/analyze.ts). */
function toRow(documentId: string, c: Chunk, vector: Float32Array, analysed: Analysed | null): RowOut {
  const row: RowOut = {
    id: chunkId(documentId, c.index),
    documentId,
    chunkIndex: c.index,
    text: c.text,
    start: c.start,
    end: c.end,
    vector,
  };
  return analysed ? { ...row, terms: analysed.terms, grams: analysed.grams } : row;
}

/** A bucket source's listing job; a BucketError when its stored settings or keys are missing. */
function bucketOf(job: Job): BucketJob {
  if (job.bucket) return job.bucket;
  throw new BucketError("the bucket source's settings or keys are missing; set its keys again or add the source again");
}

/**
 * A failure as a sentence a person can act on, and whether retrying may help; `detail`,
 * a parser's own words, is for the log only.
 */
export function describe(err: unknown): { message: string; transient: boolean; detail?: string } {
  if (err instanceof EmbeddingError) return { message: err.message, transient: err.transient };
  if (err instanceof FetchError) return { message: err.message, transient: err.transient };
  if (err instanceof FolderError) return { message: err.message, transient: false };
  if (err instanceof GitError) return { message: err.message, transient: false };
  if (err instanceof BucketError) return { message: err.message, transient: err.transient };
  if (err instanceof ExtractionError)
    return err.detail === undefined
      ? { message: err.message, transient: false }
      : { message: err.message, transient: false, detail: err.detail };
  const e = err as NodeJS.ErrnoException;
  if (e?.code === "ENOENT")
    return { message: "the uploaded file is missing from the data directory", transient: false };
  return { message: `ingestion failed: ${e?.message ?? String(err)}`, transient: false };
}
