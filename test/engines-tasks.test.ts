/**
 * Ingestion tasks (db/repo/tasks.ts and db/repo/task-batches.ts) through the same
 * repository functions on SQLite and PostgreSQL (support/engines.ts): batch inserts of
 * documents with their tasks, look-ups, claims, endings, counts and pruning, what each
 * call returns, on both engines. The cases of one engine run in order on its database.
 */
import { afterAll, expect, test } from "bun:test";
import type { DocumentRow, Task } from "../src/db/schema";
import {
  claimTasks,
  documentLabels,
  documentsWithText,
  existingIds,
  insertQueuedDocuments,
  markDocumentsProcessing,
  markTasksReady,
  taskEndings,
  unclaimTasks,
} from "../src/db/repo/task-batches";
import { documentsByExternalIds } from "../src/db/repo/external-documents";
import {
  dropQueuedTasksExcept,
  endTask,
  findTask,
  insertTask,
  pendingTaskCount,
  pendingTasksOfDocument,
  pruneFinishedTasks,
  queuedTaskCount,
  requeueInterrupted,
  retryTaskLater,
  taskEnding,
  taskQueueDepth,
  tasksOfGeneration,
  waitingDocumentsWithoutTask,
} from "../src/db/repo/tasks";
import { documentRow, openEngines, seedPipeline } from "./support/engines";
import { havePostgres } from "./support/postgres";

const { engines, close } = await openEngines();
afterAll(close);

const T = Date.UTC(2031, 4, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** A document row as ingestion stores it, queued. */
const docRow = (collectionId: string, over: Partial<DocumentRow> = {}) => documentRow(collectionId, over, iso(T));

const byRunThenId = (a: Task, b: Task) =>
  a.runAfter < b.runAfter ? -1 : a.runAfter > b.runAfter ? 1 : a.id < b.id ? -1 : 1;

for (const { name, store } of engines) {
  test(`${name}: a batch of documents goes in with one queued task each; look-ups, counts and drops`, async () => {
    const { collectionId } = await seedPipeline(store);
    const a = docRow(collectionId, { contentLength: 11, externalId: "ext-a", metadata: '{"lang":"en","n":3}' });
    // Past 2^31: a bigint column on PostgreSQL.
    const b = docRow(collectionId, { type: "file", name: "big.pdf", fileName: "big.pdf", fileSize: 5_000_000_000 });
    const c = docRow(collectionId, { type: "url", name: "a page", url: "https://example.com/x", externalId: "ext-c" });
    await store.atomically((tx) =>
      insertQueuedDocuments(tx, [{ row: a, content: "hello world" }, { row: b }, { row: c }], 1, T),
    );

    const read = await documentsWithText(store.reader, [c.id, a.id, b.id, "missing"]);
    expect([...read.keys()].sort()).toEqual([a.id, b.id, c.id].sort());
    expect(read.get(a.id)).toEqual({ doc: a, text: "hello world" });
    expect(read.get(b.id)).toEqual({ doc: b, text: null });
    expect(read.get(c.id)).toEqual({ doc: c, text: null });
    // A text still in hand from its request (ingest/tasks/texts-in-hand.ts) is taken from there,
    // asked for by the stored content hash; the others are read.
    const asked: [string, string | null][] = [];
    const inHand = await documentsWithText(store.reader, [a.id, b.id], (id, hash) => {
      asked.push([id, hash]);
      return id === b.id ? "from memory" : null;
    });
    expect(inHand.get(a.id)).toEqual({ doc: a, text: "hello world" });
    expect(inHand.get(b.id)).toEqual({ doc: b, text: "from memory" });
    expect(asked.sort()).toEqual(
      (
        [
          [a.id, a.contentHash],
          [b.id, b.contentHash],
        ] as [string, string | null][]
      ).sort(),
    );

    // A batch reads its items' stored versions by external id; b has none.
    const byExternalId = await documentsByExternalIds(store.reader, collectionId, ["ext-a", "ext-b", "ext-c"]);
    expect([...byExternalId.keys()].sort()).toEqual(["ext-a", "ext-c"]);
    expect(byExternalId.get("ext-a")).toEqual(a);
    expect(byExternalId.get("ext-c")).toEqual(c);
    expect(await documentsByExternalIds(store.reader, "another", ["ext-a"])).toEqual(new Map());
    const labels = await documentLabels(store.reader, [a.id, "missing", c.id]);
    expect(labels.sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
      [a, c]
        .map((d) => ({ id: d.id, collectionId, type: d.type, externalId: d.externalId, metadata: d.metadata }))
        .sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    expect(await documentLabels(store.reader, [])).toEqual([]);
    expect(await existingIds(store.reader, [a.id, "missing", b.id])).toEqual(new Set([a.id, b.id]));
    expect(await existingIds(store.reader, [])).toEqual(new Set());

    // One queued task per document, in generation 1, run_after the batch's time.
    const [taskOfA] = await pendingTasksOfDocument(store.reader, a.id);
    expect(taskOfA).toEqual({
      id: expect.any(String),
      documentId: a.id,
      collectionId,
      generation: 1,
      status: "queued",
      attempts: 0,
      leaseUntil: null,
      runAfter: iso(T),
      lastError: null,
      createdAt: iso(T),
      updatedAt: iso(T),
    });
    expect(await findTask(store.reader, taskOfA!.id)).toEqual(taskOfA);
    expect(await findTask(store.reader, "missing")).toBeUndefined();

    // A re-index's task for a: a now has another pending task, b does not.
    const again = await store.atomically((tx) =>
      insertTask(tx, { documentId: a.id, collectionId, generation: 2, now: T }),
    );
    expect(await findTask(store.reader, again.id)).toEqual(again);
    expect((await pendingTasksOfDocument(store.reader, a.id)).map((t) => t.id).sort()).toEqual(
      [taskOfA!.id, again.id].sort(),
    );
    const [taskOfB] = await pendingTasksOfDocument(store.reader, b.id);
    const endings = await taskEndings(store.reader, [taskOfA!.id, taskOfB!.id, "missing"]);
    expect([...endings.keys()].sort()).toEqual([taskOfA!.id, taskOfB!.id].sort());
    expect(endings.get(taskOfA!.id)).toEqual({
      status: "queued",
      attempts: 0,
      documentId: a.id,
      chunkCount: 0,
      type: "text",
      contentHash: null,
      othersPending: true,
    });
    expect(endings.get(taskOfB!.id)?.othersPending).toBe(false);
    expect(await taskEnding(store.reader, taskOfB!.id)).toEqual(endings.get(taskOfB!.id));
    expect(await taskEnding(store.reader, "missing")).toBeUndefined();

    expect(await pendingTaskCount(store.reader, collectionId, 1)).toBe(3);
    expect(await pendingTaskCount(store.reader, collectionId, 2)).toBe(1);
    expect(await pendingTaskCount(store.reader, collectionId, 3)).toBe(0);
    expect(await queuedTaskCount(store.reader)).toBe(4);

    // A re-index supersedes generation 1's waiting tasks; then its own go too.
    await store.atomically((tx) => dropQueuedTasksExcept(tx, collectionId, 2));
    expect(await pendingTaskCount(store.reader, collectionId, 1)).toBe(0);
    expect(await queuedTaskCount(store.reader)).toBe(1);
    const byId = (x: DocumentRow, y: DocumentRow) => (x.id < y.id ? -1 : 1);
    expect((await waitingDocumentsWithoutTask(store.reader)).sort(byId)).toEqual([b, c].sort(byId));
    await store.atomically((tx) => dropQueuedTasksExcept(tx, collectionId, 1));
    expect(await queuedTaskCount(store.reader)).toBe(0);
    const waiting = await waitingDocumentsWithoutTask(store.reader);
    expect(waiting.map((d) => d.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(waiting.find((d) => d.id === b.id)).toEqual(b);
  });

  test(`${name}: claims take the oldest runnable tasks; unclaims, endings, requeues, depth and pruning`, async () => {
    const { collectionId } = await seedPipeline(store);
    const ocr = '{"languages":["eng"],"pages":2}';
    const d1 = docRow(collectionId, { ocr });
    const d2 = docRow(collectionId, { ocr, contentHash: "old" });
    const d3 = docRow(collectionId, { type: "url", url: "https://example.com/3" });
    const d4 = docRow(collectionId);
    await store.atomically(async (tx) => {
      await insertQueuedDocuments(
        tx,
        [
          { row: d1, content: "one" },
          { row: d2, content: "two" },
        ],
        1,
        T,
      );
      await insertQueuedDocuments(tx, [{ row: d3 }], 1, T + 10);
      await insertQueuedDocuments(tx, [{ row: d4, content: "four" }], 1, T + 1_000_000);
    });
    const taskOf = async (d: DocumentRow) => (await pendingTasksOfDocument(store.reader, d.id))[0]!;
    const [t1, t2, t3, t4] = [await taskOf(d1), await taskOf(d2), await taskOf(d3), await taskOf(d4)];

    expect(await taskQueueDepth(store.reader, T + 20)).toEqual({ queued: 3, waiting: 1, processing: 0 });
    expect(await store.atomically((tx) => claimTasks(tx, 0, T + 20, 60_000))).toEqual([]);

    // The two oldest (same run_after: by id), marked processing with a lease.
    const claimed = await store.atomically((tx) => claimTasks(tx, 2, T + 20, 60_000));
    const lease = { status: "processing", attempts: 1, leaseUntil: iso(T + 60_020), updatedAt: iso(T + 20) } as const;
    expect(claimed).toEqual([t1, t2].sort(byRunThenId).map((t) => ({ ...t, ...lease })));
    expect(await findTask(store.reader, t1.id)).toEqual({ ...t1, ...lease });
    expect(await taskQueueDepth(store.reader, T + 20)).toEqual({ queued: 1, waiting: 1, processing: 2 });
    expect(await queuedTaskCount(store.reader)).toBe(2);

    // A claim given back is queued again, its attempt uncounted.
    await store.atomically((tx) => unclaimTasks(tx, [t2.id]));
    await store.atomically((tx) => unclaimTasks(tx, []));
    expect(await findTask(store.reader, t2.id)).toEqual({ ...t2, updatedAt: iso(T + 20) });
    const next = await store.atomically((tx) => claimTasks(tx, 10, T + 30, 60_000));
    expect(next.map((t) => t.id)).toEqual([t2.id, t3.id]);
    expect(next.map((t) => [t.status, t.attempts, t.leaseUntil])).toEqual([
      ["processing", 1, iso(T + 60_030)],
      ["processing", 1, iso(T + 60_030)],
    ]);
    expect(await store.atomically((tx) => claimTasks(tx, 10, T + 30, 60_000))).toEqual([]);

    await store.atomically((tx) => markDocumentsProcessing(tx, [d1.id, d2.id, d3.id], T + 31));
    await store.atomically((tx) => markDocumentsProcessing(tx, [], T + 31));
    const working = await documentsWithText(store.reader, [d1.id, d3.id]);
    expect(working.get(d1.id)).toEqual({ doc: { ...d1, status: "processing", updatedAt: iso(T + 31) }, text: "one" });
    expect(working.get(d3.id)?.doc.status).toBe("processing");

    const endings = await taskEndings(store.reader, [t1.id, t2.id, t3.id]);
    expect(endings.get(t2.id)).toEqual({
      status: "processing",
      attempts: 1,
      documentId: d2.id,
      chunkCount: 0,
      type: "text",
      contentHash: "old",
      othersPending: false,
    });

    // d1 and d2 indexed: one with a new hash and its OCR note cleared, one keeping both.
    await store.atomically((tx) =>
      markTasksReady(
        tx,
        [
          { taskId: t1.id, documentId: d1.id, chunkCount: 7, contentHash: "h1", clearOcr: true },
          { taskId: t2.id, documentId: d2.id, chunkCount: 3, contentHash: null, clearOcr: false },
        ],
        T + 40,
      ),
    );
    await store.atomically((tx) => markTasksReady(tx, [], T + 40));
    const ready = {
      status: "ready",
      error: null,
      progressUnit: "chunks",
      indexedAt: iso(T + 40),
      updatedAt: iso(T + 40),
    } as const;
    const done = await documentsWithText(store.reader, [d1.id, d2.id]);
    expect(done.get(d1.id)?.doc).toEqual({
      ...d1,
      ...ready,
      chunkCount: 7,
      progressDone: 7,
      progressTotal: 7,
      contentHash: "h1",
      ocr: null,
    });
    expect(done.get(d2.id)?.doc).toEqual({
      ...d2,
      ...ready,
      chunkCount: 3,
      progressDone: 3,
      progressTotal: 3,
      contentHash: "old",
      ocr,
    });
    const succeeded = { status: "succeeded", lastError: null, leaseUntil: null, updatedAt: iso(T + 40) } as const;
    expect(await findTask(store.reader, t1.id)).toEqual({ ...t1, ...succeeded, attempts: 1 });
    expect((await taskEndings(store.reader, [t1.id])).get(t1.id)).toMatchObject({
      status: "succeeded",
      chunkCount: 7,
      contentHash: "h1",
    });

    // d3 fails for good; d4 goes back to wait after a transient failure, then is claimed.
    await store.atomically((tx) => endTask(tx, t3.id, "failed", "boom", iso(T + 41)));
    expect(await findTask(store.reader, t3.id)).toMatchObject({
      status: "failed",
      lastError: "boom",
      leaseUntil: null,
      updatedAt: iso(T + 41),
    });
    expect(await tasksOfGeneration(store.reader, collectionId, 1)).toEqual({ succeeded: 2, failed: 1 });
    expect(await tasksOfGeneration(store.reader, collectionId, 9)).toEqual({ succeeded: 0, failed: 0 });
    await store.atomically((tx) => retryTaskLater(tx, t4.id, "later", iso(T + 50), iso(T + 42)));
    expect(await findTask(store.reader, t4.id)).toEqual({
      ...t4,
      lastError: "later",
      runAfter: iso(T + 50),
      updatedAt: iso(T + 42),
    });
    expect(await taskQueueDepth(store.reader, T + 45)).toEqual({ queued: 0, waiting: 1, processing: 0 });
    expect((await store.atomically((tx) => claimTasks(tx, 5, T + 55, 1000))).map((t) => t.id)).toEqual([t4.id]);
    await store.atomically((tx) => markDocumentsProcessing(tx, [d4.id], T + 56));
    expect(await taskQueueDepth(store.reader, T + 56)).toEqual({ queued: 0, waiting: 0, processing: 1 });

    // A restart: the running task and the documents left processing go back to the queue.
    const back = await store.atomically((tx) => requeueInterrupted(tx, T + 60));
    expect(back.tasks).toBe(1);
    expect(back.documents.sort()).toEqual([d3.id, d4.id].sort());
    expect(await findTask(store.reader, t4.id)).toMatchObject({
      status: "queued",
      attempts: 1,
      leaseUntil: null,
      runAfter: iso(T + 60),
      updatedAt: iso(T + 60),
    });
    expect((await documentsWithText(store.reader, [d3.id])).get(d3.id)?.doc.status).toBe("queued");
    expect(await queuedTaskCount(store.reader)).toBe(1);

    // Pruning removes finished tasks last written at or before the cut only.
    await store.atomically((tx) => pruneFinishedTasks(tx, T + 40));
    expect(await findTask(store.reader, t1.id)).toBeUndefined();
    expect(await tasksOfGeneration(store.reader, collectionId, 1)).toEqual({ succeeded: 0, failed: 1 });
    await store.atomically((tx) => pruneFinishedTasks(tx, T + 41));
    expect(await tasksOfGeneration(store.reader, collectionId, 1)).toEqual({ succeeded: 0, failed: 0 });
    expect((await findTask(store.reader, t4.id))?.status).toBe("queued");
  });
}

test("both engines ran where PostgreSQL is installed", () => {
  expect(engines.map((e) => e.name)).toEqual(havePostgres ? ["sqlite", "postgres"] : ["sqlite"]);
});
