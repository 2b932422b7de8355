/**
 * Endings of many tasks in one go. The jobs of small documents finish by the hundred
 * within a few milliseconds (their rows share a LanceDB commit); each ending read its
 * task, ended it, marked its document ready and wrote its event, four statements per
 * document. The endings that arrive in one turn are recorded together: the common
 * case (a success in a settled index) in a few statements for all, every other case
 * as before (outcome.ts), all in one transaction, each event with its status change.
 * Should that transaction fail, each ending is recorded alone (recordOutcome retries).
 */
import type { WriteBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { markTasksReady, type ReadyRow, taskEndings } from "../../db/repo/task-batches";
import type { TaskEnding } from "../../db/repo/tasks";
import type { Collection, Task } from "../../db/schema";
import type { Logger } from "../../log";
import { recordSourceEvents } from "../events";
import { collectionsOnce } from "./job-for";
import { type Finished, finishTask, type Outcome, recordOutcome } from "./outcome";

interface Ending {
  task: Task;
  outcome: Outcome;
  resolve: (f: Finished | null) => void;
  reject: (e: unknown) => void;
}

const READY: Finished = { dropGeneration: null, clearRows: false, gated: false, result: "ready" };

/**
 * True when the ending only marks the document ready: a success that embedded new
 * text, in the settled index whose vector size is known, with no other task of the
 * document pending and nothing of a fetch to note (url/api keep their own times).
 */
function onlyReady(outcome: Outcome, e: TaskEnding | undefined, task: Task, col: Collection | undefined): boolean {
  return (
    outcome.ok &&
    !outcome.unchanged &&
    !outcome.crawl &&
    !outcome.folder &&
    (outcome.ocr === undefined || outcome.ocr === null) &&
    e?.status === "processing" &&
    e.attempts === task.attempts &&
    !e.othersPending &&
    e.type !== "url" &&
    e.type !== "api" &&
    col !== undefined &&
    col.buildingGeneration === null &&
    col.activeGeneration === task.generation &&
    col.embeddingDimensions !== null
  );
}

/** Records the endings of `items` inside the caller's transaction; results in the same order. */
export async function finishTasks(t: Db, items: { task: Task; outcome: Outcome }[], now: number): Promise<Finished[]> {
  const endings = await taskEndings(
    t,
    items.map((i) => i.task.id),
  );
  const collectionOf = collectionsOnce(t);
  const ready: ReadyRow[] = [];
  const results: (Finished | null)[] = [];
  for (const { task, outcome } of items) {
    const e = endings.get(task.id);
    if (!onlyReady(outcome, e, task, await collectionOf(task.collectionId)) || !outcome.ok) {
      results.push(null);
      continue;
    }
    ready.push({
      taskId: task.id,
      documentId: e!.documentId,
      chunkCount: outcome.chunkCount,
      contentHash: outcome.contentHash || null,
      clearOcr: outcome.ocr === null,
    });
    results.push(READY);
  }
  await markTasksReady(t, ready, now);
  await recordSourceEvents(
    t,
    "source.ready",
    ready.map((r) => r.documentId),
    now,
  );
  // The rest one by one, after: none of them shares a task or a document with the above.
  const out: Finished[] = [];
  for (const [i, r] of results.entries()) out.push(r ?? (await finishTask(t, items[i]!.task, items[i]!.outcome, now)));
  return out;
}

/** Gathers the endings of a turn into one write (see above). */
export class EndingBatch {
  private queue: Ending[] = [];

  constructor(
    private readonly writes: WriteBatch,
    private readonly stopped: () => boolean,
    private readonly log: Logger,
  ) {}

  /** Records a task's outcome; as recordOutcome (outcome.ts), null once the engine stops. */
  record(task: Task, outcome: Outcome): Promise<Finished | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, outcome, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const items = this.queue;
    this.queue = [];
    void this.writes
      .run((t) => finishTasks(t, items, Date.now()))
      .then(
        (results) => {
          for (const [i, it] of items.entries()) it.resolve(results[i]!);
        },
        () => {
          for (const it of items)
            void recordOutcome(this.writes, it.task, it.outcome, this.stopped, this.log).then(it.resolve, it.reject);
        },
      );
  }
}
