/**
 * Start-up: interrupted work goes back to the queue (recoverInterrupted), then
 * reconciliation: after any stop, even kill -9, make LanceDB agree with SQLite.
 * Tables of deleted collections or abandoned generations are dropped; in each
 * settled collection, rows of unknown or failed documents are removed,
 * and a ready document whose row count differs from its chunk count is queued
 * again (its write is idempotent, so the rerun leaves exactly one copy).
 */
import type { Store } from "../../db/store";
import { findCollectionById } from "../../db/repo/collections";
import { listDocumentStates } from "../../db/repo/document-states";
import { pendingTasksOfDocument, requeueInterrupted, waitingDocumentsWithoutTask } from "../../db/repo/tasks";
import type { FileStore } from "../../files/store";
import type { Logger } from "../../log";
import type { VectorStore } from "../../vectors/store";
import type { IngestEngine } from "../engine";
import { requeueExpired } from "../../db/repo/task-leases";
import { REPLICA_LEASE_MS } from "./leases";
import { recordSourceEvent, recordSourceEvents } from "../events";
import { queueTask } from "./queue";
import { isLive, isSettled } from "../generations";

interface Deps {
  db: Store;
  vectorStore: VectorStore;
  engine: IngestEngine;
  files: FileStore;
  log: Logger;
  /** One of several replicas (leases.ts): other processes may be writing meanwhile. */
  replica?: boolean;
  /** A replica's task lease (RAGD_REPLICA_LEASE); leases.ts REPLICA_LEASE_MS unless set. */
  replicaLeaseMs?: number;
}

/**
 * Puts work interrupted by a stop or crash back in the queue, before the engine
 * starts: running tasks go back to queued, a waiting document without a task gets
 * one, half-written uploads go.
 */
export async function recoverInterrupted(
  d: Pick<Deps, "db" | "files" | "log" | "replica" | "replicaLeaseMs">,
): Promise<void> {
  const now = Date.now();
  const n = await d.db.atomically(async (t) => {
    // Replicas: the other processes' running tasks are theirs until their leases run out.
    if (d.replica) {
      const docs = await requeueExpired(t, now, 2 * (d.replicaLeaseMs ?? REPLICA_LEASE_MS));
      await recordSourceEvents(t, "source.queued", docs, now);
      return docs.length;
    }
    const back = await requeueInterrupted(t, now);
    for (const id of back.documents) await recordSourceEvent(t, "source.queued", id, {}, now);
    return back.tasks;
  });
  if (n) d.log.info("requeued interrupted ingestion tasks", { count: n });
  // Belt and braces: a waiting document without a task would wait forever.
  await d.db.atomically(async (t) => {
    for (const doc of await waitingDocumentsWithoutTask(t)) {
      const col = await findCollectionById(t, doc.collectionId);
      if (col) await queueTask(t, doc.id, col, now);
    }
  });
  d.files.sweepTemp();
}

export async function reconcile(d: Deps): Promise<void> {
  let dropped = 0;
  let requeued = 0;
  let cleared = 0;
  for (const t of await d.vectorStore.listTables()) {
    const col = await findCollectionById(d.db.reader, t.collectionId);
    if (!col) {
      await d.vectorStore.dropCollection(t.collectionId);
      dropped++;
      continue;
    }
    if (!isLive(col, t.generation)) {
      await d.vectorStore.dropGeneration(t.collectionId, t.generation);
      dropped++;
      continue;
    }
    // A re-index in flight re-writes every document anyway; only settled tables are checked.
    if (!isSettled(col, t.generation)) continue;
    const counts = await d.vectorStore.documentCounts(t.collectionId, t.generation);
    const docs = new Map((await listDocumentStates(d.db.reader, col.id)).map((x) => [x.id, x]));
    const idle = async (docId: string) => (await pendingTasksOfDocument(d.db.reader, docId)).length === 0;
    for (const [docId, n] of counts) {
      const doc = docs.get(docId);
      // A failed document keeps rows only when an abandoned re-index left its old chunks (chunkCount > 0).
      if (!doc || (doc.status === "failed" && doc.chunkCount === 0) || doc.status === "awaiting_upload") {
        await d.engine.sink
          .clear({ collectionId: col.id, generation: t.generation, documentId: docId })
          .catch(() => {});
        if (!doc) await d.vectorStore.deleteDocument(col.id, docId);
        cleared++;
      } else if (doc.status === "ready" && n !== doc.chunkCount && (await idle(docId))) {
        await d.engine.enqueue(doc.id);
        requeued++;
      }
    }
    for (const doc of docs.values()) {
      if (doc.status === "ready" && doc.chunkCount > 0 && !counts.has(doc.id) && (await idle(doc.id))) {
        await d.engine.enqueue(doc.id);
        requeued++;
      }
    }
  }
  const orphans = await removeOrphanFiles(d);
  if (dropped || requeued || cleared || orphans)
    d.log.info("reconciled the vector store", { dropped, requeued, cleared, orphanFiles: orphans });
}

/**
 * Files whose collection no longer exists (a crash between delete and clean-up), and
 * files no document names: a crash between storing a file and the commit of its row
 * (a knowledge-base upload, a documents-API file in a bucket, which comes under a name
 * of its own), or between a row's delete and its file's. It runs before ragd listens,
 * so no upload is on its way; a source awaiting its upload keeps its name. Not so with
 * replicas: another may be between storing a file and its commit. Their housekeeping
 * sweeps instead (housekeeping.ts), at start and hourly, one replica at a time, removing a
 * file no document names once it is older than any upload still on its way.
 */
async function removeOrphanFiles(d: Deps): Promise<number> {
  return d.replica ? 0 : removeUnnamedFiles(d);
}

/**
 * Removes the files of deleted collections, and the files no document names last written
 * before `before` (all of them without it); how many of the latter.
 */
export async function removeUnnamedFiles(d: Pick<Deps, "db" | "files">, before?: number): Promise<number> {
  let removed = 0;
  for (const id of await d.files.listCollections()) {
    if (!(await findCollectionById(d.db.reader, id))) {
      await d.files.removeCollection(id);
      continue;
    }
    // Files first: one stored after this listing is not in it, whatever the documents say.
    const names = await d.files.listFiles(id, before);
    const named = new Set(
      (await listDocumentStates(d.db.reader, id)).flatMap((doc) => [doc.id, doc.filePath ?? doc.id]),
    );
    for (const name of names) {
      if (named.has(name)) continue;
      await d.files.remove(id, name);
      removed++;
    }
  }
  return removed;
}
