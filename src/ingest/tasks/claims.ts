/**
 * Claiming many queued tasks in one step: one statement takes them (so no task can go
 * to two workers), one query reads their documents and one the texts not still in hand
 * from their requests (texts-in-hand.ts), and one statement each
 * marks the documents processing and writes their `source.processing` events, in the
 * same transaction as the claims.
 */
import type { Db } from "../../db/client";
import { claimTasks, documentsWithText, markDocumentsProcessing, unclaimTasks } from "../../db/repo/task-batches";
import type { Collection, Task } from "../../db/schema";
import { recordSourceEvents } from "../events";
import type { Job } from "../job-types";
import { buildJob, type JobSettings } from "./job-for";
import type { TextsInHand } from "./texts-in-hand";

/**
 * Claims up to `n` runnable tasks and offers each job to `place`, oldest first; a task
 * `place` refuses (no room) is given back to the queue, and so is every later one.
 * Each claim holds its task for `leaseMs` (leases.ts).
 * Returns how many tasks were claimed (0: none is runnable). Run it in a savepoint:
 * if it throws, its claims must roll back with it.
 */
export async function claimJobs(
  t: Db,
  n: number,
  d: JobSettings,
  collectionOf: (id: string) => Promise<Collection | undefined>,
  place: (task: Task, job: Job) => boolean,
  leaseMs: number,
  texts: TextsInHand,
): Promise<number> {
  const now = Date.now();
  const tasks = await claimTasks(t, n, now, leaseMs);
  if (tasks.length === 0) return 0;
  const docs = await documentsWithText(
    t,
    tasks.map((x) => x.documentId),
    (id, hash) => texts.take(id, hash),
  );
  const started: string[] = [];
  const refused: string[] = [];
  for (const task of tasks) {
    const found = docs.get(task.documentId);
    const col = await collectionOf(task.collectionId);
    // A document or collection deleted meanwhile: its task goes with it (ON DELETE CASCADE).
    if (!found || !col) continue;
    if (refused.length > 0) refused.push(task.id);
    else if (!place(task, await buildJob(t, task, found.doc, col, found.text, d))) refused.push(task.id);
    else started.push(task.documentId);
  }
  await unclaimTasks(t, refused);
  await markDocumentsProcessing(t, started, now);
  await recordSourceEvents(t, "source.processing", started, now);
  return tasks.length;
}
