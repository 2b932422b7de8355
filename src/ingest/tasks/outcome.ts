/**
 * What happens when a task ends: success marks the document ready; a transient
 * failure goes back to the queue with backoff until the attempts run out; other
 * failures mark the document failed with the reason. The last task of a re-index
 * ends it (generations.ts).
 */
import type { WriteBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
import { markDocumentReady, updateDocument } from "../../db/repo/documents";
import { saveSourceFetch } from "../../db/repo/source-fetches";
import { endTask, retryTaskLater, type TaskEnding, taskEnding } from "../../db/repo/tasks";
import type { Task } from "../../db/schema";
import type { CrawlReport } from "../crawl/types";
import type { FolderScan } from "../folder/types";
import type { SyncReport } from "../sync/synced-files";
import type { GitScan } from "../git/types";
import type { GitSyncReport } from "../sync/git-sync";
import type { Validators } from "../fetch/index";
import type { Logger } from "../../log";
import { DiskFullError, isOutOfSpace } from "../../tools/disk";
import { scrubMessage } from "../../tools/scrub";
import { recordSourceEvent } from "../events";
import { endReindexIfBuilt, isBuilding, noteDimensions } from "../generations";
import type { JobEvent } from "../job-types";

export const MAX_ATTEMPTS = 5;

/** How a task ended: `retry` is a transient failure that went back to the queue. */
export type SourceResult = "ready" | "unchanged" | "failed" | "retry";

export type Outcome =
  | {
      ok: true;
      chunkCount: number;
      dimensions: number;
      /** Of the text indexed (url/api, learned by the job); undefined keeps the stored one. */
      contentHash?: string | null;
      /** The fetched text was already indexed: the stored chunks stay, chunkCount is ignored. */
      unchanged?: boolean;
      /** OCR read some of the text (languages, pages); null: none did. Undefined keeps the stored note. */
      ocr?: { languages: string[]; pages: number } | null;
      /** url/api: the validators of the answer, for the next conditional request. */
      validators?: Validators | null;
      /** A crawl source: what its crawl found (sync/crawl-sync.ts has stored the pages). */
      crawl?: CrawlReport;
      /**
       * A folder source: what its walk found (null: a re-index, nothing walked), and once
       * sync/folder-sync.ts has applied it, what the sync did (the source.ready event carries it).
       */
      folder?: { scan: FolderScan | null; report?: SyncReport };
      /** A Git source: what its fetch found (null: a re-index), then what sync/git-sync.ts did with it. */
      git?: { scan: GitScan | null; report?: GitSyncReport };
    }
  | {
      ok: false;
      message: string;
      transient: boolean;
      /** A parser's own words (extract/errors.ts): for the log line only, never stored. */
      detail?: string;
    };

export interface Finished {
  /** A generation to drop from the vector store: a re-index has just switched over. */
  dropGeneration: number | null;
  /** A gated re-index is built: its evaluation decides whether it switches (generations.ts). */
  gated: boolean;
  /** The task failed for good: its partial rows in its generation must go. */
  clearRows: boolean;
  /** How the task ended; null when its document or task was deleted meanwhile. */
  result: SourceResult | null;
}

const NOTHING: Finished = { dropGeneration: null, clearRows: false, gated: false, result: null };

/** The ending a job reported (run/job.ts), as the outcome to record. */
export function outcomeOf(
  e: Extract<JobEvent, { type: "done" | "unchanged" | "error" | "crawled" | "folder-scanned" | "git-synced" }>,
): Outcome {
  const validators = "validators" in e ? e.validators : undefined;
  if (e.type === "done")
    return {
      ok: true,
      chunkCount: e.chunkCount,
      dimensions: e.dimensions,
      contentHash: e.contentHash,
      ocr: e.ocr,
      validators,
    };
  if (e.type === "unchanged")
    return { ok: true, chunkCount: 0, dimensions: 0, contentHash: e.contentHash, unchanged: true, validators };
  if (e.type === "crawled") return { ok: true, chunkCount: 0, dimensions: 0, contentHash: null, crawl: e.report };
  if (e.type === "git-synced")
    return { ok: true, chunkCount: 0, dimensions: 0, contentHash: null, git: { scan: e.scan } };
  if (e.type === "folder-scanned")
    return { ok: true, chunkCount: 0, dimensions: 0, contentHash: null, folder: { scan: e.scan } };
  return e.detail === undefined
    ? { ok: false, message: e.message, transient: e.transient }
    : { ok: false, message: e.message, transient: e.transient, detail: e.detail };
}

/**
 * The outcome to record once the job's rows are written (or not): a write that
 * failed fails a job that succeeded (transient); a failure for want of space fails
 * at once with the sentence naming the disk (`full`: the disk watch queues it again
 * once there is room; retrying sooner only fails again); any other failure's message
 * loses the paths of the machine that built a library.
 */
export function settleOutcome(
  outcome: Outcome,
  writeFailure: unknown,
  dataDir: string,
): { outcome: Outcome; full: DiskFullError | null } {
  if (writeFailure && outcome.ok)
    outcome = { ok: false, message: `could not store the chunks: ${(writeFailure as Error).message}`, transient: true };
  if (outcome.ok) return { outcome, full: null };
  if (isOutOfSpace(writeFailure) || isOutOfSpace(outcome.message)) {
    const full = new DiskFullError(dataDir);
    return { outcome: { ok: false, message: full.message, transient: false }, full };
  }
  return { outcome: { ...outcome, message: scrubMessage(outcome.message, dataDir) }, full: null };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Backoff before attempt n+1: 2 s, 4 s, 8 s, … capped at 5 minutes. */
export const backoffMs = (attempts: number) => Math.min(2000 * 2 ** Math.max(0, attempts - 1), 5 * 60_000);

/**
 * Records a task's outcome and says what the vector store must do. Call it inside a
 * transaction (the engine's group commit gives each call its own savepoint).
 */
export async function finishTask(t: Db, task: Task, outcome: Outcome, now: number): Promise<Finished> {
  // The task, its document, and whether another task of the document is pending, in one query.
  const current = await taskEnding(t, task.id);
  // Deleted meanwhile, or its lease ran out and another claim took it (leases.ts): that run ends it.
  if (current?.status !== "processing" || current.attempts !== task.attempts) return NOTHING;
  const doc = {
    id: current.documentId,
    chunkCount: current.chunkCount,
    type: current.type,
    contentHash: current.contentHash,
  };
  // Read once: what follows changes no field of it that the re-index checks read.
  const col = await findCollectionById(t, task.collectionId);
  if (!outcome.ok && outcome.transient && current.attempts < MAX_ATTEMPTS) {
    await retryTaskLater(t, task.id, outcome.message, iso(now + backoffMs(current.attempts)), iso(now));
    await updateDocument(t, doc.id, { status: "queued", updatedAt: iso(now) });
    await recordSourceEvent(t, "source.queued", doc.id, { error: `will try again: ${outcome.message}` }, now);
    return { ...NOTHING, result: "retry" };
  }
  await endTask(t, task.id, outcome.ok ? "succeeded" : "failed", outcome.ok ? null : outcome.message, iso(now));
  if (outcome.ok) await noteFetch(t, doc, outcome, now);
  if (outcome.ok && outcome.unchanged) outcome = { ...outcome, chunkCount: doc.chunkCount };
  if (outcome.ok && outcome.contentHash) await updateDocument(t, doc.id, { contentHash: outcome.contentHash });
  if (outcome.ok && outcome.ocr !== undefined)
    await updateDocument(t, doc.id, { ocr: outcome.ocr ? JSON.stringify(outcome.ocr) : null });
  const stillPending = current.othersPending;
  if (outcome.ok && !stillPending) {
    await markDocumentReady(t, doc.id, outcome.chunkCount, iso(now));
    const sync = outcome.folder?.report ?? outcome.git?.report;
    await recordSourceEvent(t, "source.ready", doc.id, sync ? { sync } : {}, now);
  } else if (outcome.ok) {
    await updateDocument(t, doc.id, {
      error: null,
      chunkCount: outcome.chunkCount,
      progressDone: outcome.chunkCount,
      progressTotal: outcome.chunkCount,
      progressUnit: "chunks",
      indexedAt: iso(now),
      updatedAt: iso(now),
    });
  } else {
    const attempts = current.attempts > 1 ? ` (after ${current.attempts} attempts)` : "";
    // A failed rebuild task leaves the document's chunks in the index that still answers.
    const rebuilding = col !== undefined && isBuilding(col, task.generation);
    await updateDocument(t, doc.id, {
      ...(stillPending ? {} : { status: "failed" as const, error: outcome.message + attempts }),
      ...(rebuilding ? {} : { chunkCount: 0 }),
      updatedAt: iso(now),
    });
    if (!stillPending) await recordSourceEvent(t, "source.failed", doc.id, { error: outcome.message + attempts }, now);
  }
  // Neither an unchanged text nor a crawl (its pages are embedded by tasks of their own) embedded anything.
  const learned =
    outcome.ok && !outcome.unchanged && !outcome.crawl && !outcome.folder && !outcome.git ? outcome.dimensions : null;
  if (learned !== null) await noteDimensions(t, task, learned, col);
  const end = await endReindexIfBuilt(t, task.collectionId, now, learned, col);
  const result = !outcome.ok ? "failed" : outcome.unchanged ? "unchanged" : "ready";
  return { dropGeneration: end.drop, clearRows: !outcome.ok, gated: end.gated, result };
}

/**
 * A url/api source's check (docs/API.md, "Refresh and crawl"): when it was checked,
 * when its text last changed (a hash unlike the one indexed), and the answer's
 * validators. A crawl source's own times are kept by sync/crawl-sync.ts.
 */
async function noteFetch(
  t: Db,
  doc: Pick<TaskEnding, "type" | "contentHash"> & { id: string },
  outcome: Extract<Outcome, { ok: true }>,
  now: number,
): Promise<void> {
  if ((doc.type !== "url" && doc.type !== "api") || outcome.crawl) return;
  const changed = !outcome.unchanged && outcome.contentHash !== doc.contentHash;
  await saveSourceFetch(t, doc.id, {
    lastCheckedAt: iso(now),
    ...(changed ? { lastChangedAt: iso(now) } : {}),
    ...(outcome.validators ? { etag: outcome.validators.etag, lastModified: outcome.validators.lastModified } : {}),
  });
}

/**
 * Records a task's outcome with the next group commit. While SQLite refuses (a full
 * disk, say) it tries again, waiting up to a minute between tries, rather than leave the
 * document processing; null once the engine stops (the restart requeues the task).
 */
export async function recordOutcome(
  writes: WriteBatch,
  task: Task,
  outcome: Outcome,
  stopped: () => boolean,
  log: Logger,
): Promise<Finished | null> {
  for (let wait = 1000; ; wait = Math.min(wait * 2, 60_000)) {
    try {
      return await writes.run((t) => finishTask(t, task, outcome, Date.now()));
    } catch (err) {
      log.error("could not record the end of an ingestion task; trying again", { error: err, task: task.id });
      if (stopped()) return null;
      await Bun.sleep(wait);
      if (stopped()) return null;
    }
  }
}
