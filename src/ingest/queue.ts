/** Putting a document in the queue: one waiting task in the collection's target generation. */
import type { Db } from "../db/client";
import { markDocumentQueued } from "../db/queries/documents";
import { insertTask, pendingTasksOfDocument } from "../db/queries/tasks";
import type { Collection } from "../db/schema";
import { targetGeneration } from "./generations";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Queues a task for a document in the collection's target generation and marks
 * the document queued; a second waiting task for the same generation is not added.
 * A document inserted in this same transaction (`fresh`) has no task and is queued already.
 */
export function queueTask(db: Db, documentId: string, col: Collection, now: number, fresh = false): void {
  const generation = targetGeneration(col);
  const waiting =
    !fresh && pendingTasksOfDocument(db, documentId).some((t) => t.status === "queued" && t.generation === generation);
  if (!waiting) insertTask(db, { documentId, collectionId: col.id, generation, now });
  if (!fresh) markDocumentQueued(db, documentId, iso(now));
}
