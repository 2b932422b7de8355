/**
 * Named queries on ingestion tasks. A task is one ingestion of one document into
 * one index generation; its status is the truth a restart resumes from.
 */
import { and, count, eq, inArray, lte, sql } from "drizzle-orm";
import type { Db } from "../client";
import { first, tables } from "../dialect";
import { once, ph, placeholdersOf } from "../prepared";
import type { DocumentRow, Task } from "../schema";
import { taskEndings } from "./task-batches";

const iso = (ms: number) => new Date(ms).toISOString();

export async function insertTask(
  db: Db,
  t: { documentId: string; collectionId: string; generation: number; now: number },
): Promise<Task> {
  const row: Task = {
    id: Bun.randomUUIDv7(),
    documentId: t.documentId,
    collectionId: t.collectionId,
    generation: t.generation,
    status: "queued",
    attempts: 0,
    leaseUntil: null,
    runAfter: iso(t.now),
    lastError: null,
    createdAt: iso(t.now),
    updatedAt: iso(t.now),
  };
  await once(db, insert).execute(row);
  return row;
}

const insert = (db: Db) => {
  const row: Record<keyof Task, null> = {
    id: null,
    documentId: null,
    collectionId: null,
    generation: null,
    status: null,
    attempts: null,
    leaseUntil: null,
    runAfter: null,
    lastError: null,
    createdAt: null,
    updatedAt: null,
  };
  return db.insert(tables(db).tasks).values(placeholdersOf(row)).prepare();
};

const byId = (db: Db) => {
  const { tasks } = tables(db);
  return db
    .select()
    .from(tasks)
    .where(eq(tasks.id, ph("id")))
    .prepare();
};

export async function findTask(db: Db, id: string): Promise<Task | undefined> {
  return first(await once(db, byId).execute({ id }));
}

const ended = (db: Db) => {
  const { tasks } = tables(db);
  return db
    .update(tasks)
    .set({ status: ph("status"), lastError: ph("error"), leaseUntil: null, updatedAt: ph("now") })
    .where(eq(tasks.id, ph("id")))
    .prepare();
};

/** The task ended for good: succeeded, or failed with `error`. */
export async function endTask(
  db: Db,
  id: string,
  status: "succeeded" | "failed",
  error: string | null,
  now: string,
): Promise<void> {
  await once(db, ended).execute({ id, status, error, now });
}

const retryLater = (db: Db) => {
  const { tasks } = tables(db);
  return db
    .update(tasks)
    .set({ status: "queued", lastError: ph("error"), runAfter: ph("after"), leaseUntil: null, updatedAt: ph("now") })
    .where(eq(tasks.id, ph("id")))
    .prepare();
};

/** Back to the queue after a transient failure, to run again after `runAfter`. */
export async function retryTaskLater(db: Db, id: string, error: string, runAfter: string, now: string): Promise<void> {
  await once(db, retryLater).execute({ id, error, after: runAfter, now });
}

const pendingOfDocument = (db: Db) => {
  const { tasks } = tables(db);
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.documentId, ph("documentId")), inArray(tasks.status, ["queued", "processing"])))
    .prepare();
};

/** Tasks of a document still waiting or running. */
export async function pendingTasksOfDocument(db: Db, documentId: string): Promise<Task[]> {
  return once(db, pendingOfDocument).execute({ documentId });
}

const pendingOfGeneration = (db: Db) => {
  const { tasks } = tables(db);
  return db
    .select({ n: count() })
    .from(tasks)
    .where(
      and(
        eq(tasks.collectionId, ph("collectionId")),
        eq(tasks.generation, ph("generation")),
        inArray(tasks.status, ["queued", "processing"]),
      ),
    )
    .prepare();
};

/** How many tasks of a collection's generation are still waiting or running. */
export async function pendingTaskCount(db: Db, collectionId: string, generation: number): Promise<number> {
  return first(await once(db, pendingOfGeneration).execute({ collectionId, generation }))?.n ?? 0;
}

const queuedCount = (db: Db) => {
  const { tasks } = tables(db);
  return db.select({ n: count() }).from(tasks).where(eq(tasks.status, "queued")).prepare();
};

export async function queuedTaskCount(db: Db): Promise<number> {
  return first(await once(db, queuedCount).execute())?.n ?? 0;
}

/**
 * Tasks waiting and running, for /metrics: `queued` may start now, `waiting` is
 * queued for a retry after its backoff, `processing` runs. Reads only the status index.
 */
export async function taskQueueDepth(
  db: Db,
  now: number,
): Promise<{ queued: number; waiting: number; processing: number }> {
  const { tasks } = tables(db);
  // `later` is 0 or 1 on SQLite, a boolean on PostgreSQL: read as truthy.
  const rows = await db
    .select({ status: tasks.status, later: sql<number | boolean>`${tasks.runAfter} > ${iso(now)}`, n: count() })
    .from(tasks)
    .where(inArray(tasks.status, ["queued", "processing"]))
    .groupBy(tasks.status, sql`2`);
  const depth = { queued: 0, waiting: 0, processing: 0 };
  for (const r of rows) {
    if (r.status === "processing") depth.processing += r.n;
    else if (r.later) depth.waiting += r.n;
    else depth.queued += r.n;
  }
  return depth;
}

/** Removes waiting tasks of a collection for generations other than `keep` (a re-index supersedes them). */
export async function dropQueuedTasksExcept(db: Db, collectionId: string, keep: number): Promise<void> {
  const { tasks } = tables(db);
  await db
    .delete(tasks)
    .where(and(eq(tasks.collectionId, collectionId), eq(tasks.status, "queued"), sql`${tasks.generation} <> ${keep}`));
}

/**
 * After a crash: running tasks and documents go back to the queue. Returns how many
 * tasks, and the documents that went back (run it inside a transaction).
 */
export async function requeueInterrupted(db: Db, now: number): Promise<{ tasks: number; documents: string[] }> {
  const { tasks, documents } = tables(db);
  const n = (
    await db
      .update(tasks)
      .set({ status: "queued", leaseUntil: null, runAfter: iso(now), updatedAt: iso(now) })
      .where(eq(tasks.status, "processing"))
      .returning({ id: tasks.id })
  ).length;
  const requeued = await db
    .update(documents)
    .set({ status: "queued" })
    .where(eq(documents.status, "processing"))
    .returning({ id: documents.id });
  return { tasks: n, documents: requeued.map((r) => r.id) };
}

/** Deletes finished tasks older than `beforeMs` so the table does not grow without bound. */
export async function pruneFinishedTasks(db: Db, beforeMs: number): Promise<void> {
  const { tasks } = tables(db);
  await db
    .delete(tasks)
    .where(and(inArray(tasks.status, ["succeeded", "failed"]), lte(tasks.updatedAt, iso(beforeMs))));
}

/** Documents waiting (queued or processing) with no waiting or running task. */
export async function waitingDocumentsWithoutTask(db: Db): Promise<DocumentRow[]> {
  const { tasks, documents } = tables(db);
  return db
    .select()
    .from(documents)
    .where(
      and(
        inArray(documents.status, ["queued", "processing"]),
        sql`NOT EXISTS (SELECT 1 FROM ${tasks} t WHERE t.document_id = ${sql.raw('"documents"."id"')} AND t.status IN ('queued','processing'))`,
      ),
    );
}

/** How many tasks of a generation succeeded and failed. */
export async function tasksOfGeneration(
  db: Db,
  collectionId: string,
  generation: number,
): Promise<{ succeeded: number; failed: number }> {
  const { tasks } = tables(db);
  const rows = await db
    .select({ status: tasks.status, n: count() })
    .from(tasks)
    .where(and(eq(tasks.collectionId, collectionId), eq(tasks.generation, generation)))
    .groupBy(tasks.status);
  const of = (s: string) => rows.find((r) => r.status === s)?.n ?? 0;
  return { succeeded: of("succeeded"), failed: of("failed") };
}

/** What recording a task's ending reads, in one query (it runs once per ingested document). */
export interface TaskEnding {
  status: Task["status"];
  attempts: number;
  documentId: string;
  /** The document's chunk count as stored. */
  chunkCount: number;
  /** The document's type and indexed text hash, as stored (a re-fetch compares them). */
  type: DocumentRow["type"];
  contentHash: string | null;
  /** The document has another task waiting or running (a re-index's, say). */
  othersPending: boolean;
}

/** The task and its document as an ending needs them; undefined when either is gone. */
export async function taskEnding(db: Db, id: string): Promise<TaskEnding | undefined> {
  return (await taskEndings(db, [id])).get(id);
}
