/**
 * Documents and their texts, the documents API's look-ups and source fetch state
 * (db/repo/{documents,external-documents,source-fetches}.ts) through the same repository
 * functions on SQLite and PostgreSQL (support/engines.ts): what each call returns, on both
 * engines. Collections, keys, administration and evaluations: engines-collections.test.ts.
 */
import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "../src/db/client";
import { tables } from "../src/db/dialect";
import {
  CONTENT_PREVIEW_CHARS,
  claimUpload,
  deleteDocumentRow,
  documentsFailedForSpace,
  failAwaitingUpload,
  findDocument,
  findDocumentById,
  findDocumentText,
  findDocumentWithPreview,
  insertDocument,
  listAwaitingUploads,
  listDocuments,
  listDocumentsWithPreview,
  markDocumentQueued,
  markDocumentReady,
  markRebuildFailed,
  setDocumentProgress,
  updateDocument,
  zeroFailedChunkCounts,
} from "../src/db/repo/documents";
import {
  dropPendingTasksOfDocument,
  findDocumentByExternalId,
  findSameContent,
  listDocumentPage,
  replaceDocumentText,
} from "../src/db/repo/external-documents";
import {
  crawledPageIds,
  crawledPagesOf,
  dueRefetches,
  findSourceFetch,
  overdueRefetches,
  saveSourceFetch,
  sourceFetchesOf,
} from "../src/db/repo/source-fetches";
import type { DocumentRow } from "../src/db/schema";
import { documentRow, openEngines, seedPipeline } from "./support/engines";
import { havePostgres } from "./support/postgres";

const { engines, close } = await openEngines();
afterAll(close);

const at = (s: number) => new Date(Date.UTC(2030, 0, 1) + s * 1000).toISOString();

/** A document row of `collectionId` with the given fields, named after its id. */
const doc = (collectionId: string, fields: Partial<DocumentRow> & { id: string }) =>
  documentRow(collectionId, { name: fields.id, ...fields }, at(0));

/** Task rows straight through the builder (tasks.ts is not what this file checks). */
async function addTask(
  db: Db,
  id: string,
  documentId: string,
  collectionId: string,
  status: "queued" | "processing" | "succeeded",
) {
  await db.insert(tables(db).tasks).values({
    id,
    documentId,
    collectionId,
    generation: 1,
    status,
    runAfter: at(0),
    createdAt: at(0),
    updatedAt: at(0),
  });
}

async function taskIdsOf(db: Db, documentId: string): Promise<string[]> {
  const { tasks } = tables(db);
  return (await db.select({ id: tasks.id }).from(tasks).where(eq(tasks.documentId, documentId)))
    .map((r) => r.id)
    .sort();
}

for (const { name, store } of engines) {
  test(`${name}: documents with their texts, previews, progress and status changes`, async () => {
    const { collectionId } = await seedPipeline(store);
    const other = await seedPipeline(store);
    const long = "x".repeat(CONTENT_PREVIEW_CHARS + 50);
    const d = (s: string) => `${name}-doc-${s}`;
    await store.atomically(async (tx) => {
      await insertDocument(
        tx,
        doc(collectionId, { id: d("1"), contentLength: long.length, externalId: "ext-1" }),
        long,
      );
      await insertDocument(
        tx,
        doc(collectionId, {
          id: d("2"),
          type: "file",
          fileName: "a.pdf",
          fileSize: 5_000_000_000,
          status: "awaiting_upload",
          createdAt: at(10),
        }),
      );
      await insertDocument(tx, doc(other.collectionId, { id: d("3") }), "short");
    });
    expect((await listDocuments(store.reader, collectionId)).map((r) => r.id)).toEqual([d("1"), d("2")]);
    expect((await findDocument(store.reader, collectionId, d("2")))?.fileSize).toBe(5_000_000_000);
    expect(await findDocument(store.reader, collectionId, d("3"))).toBeUndefined();
    expect((await findDocumentByExternalId(store.reader, collectionId, "ext-1"))?.id).toBe(d("1"));
    expect(await findDocumentByExternalId(store.reader, other.collectionId, "ext-1")).toBeUndefined();
    expect(await findDocumentText(store.reader, d("1"))).toBe(long);
    expect(await findDocumentText(store.reader, d("2"))).toBeNull();

    const previews = await listDocumentsWithPreview(store.reader, collectionId);
    expect(previews.map((p) => [p.id, p.preview?.length ?? null, p.contentLength])).toEqual([
      [d("1"), CONTENT_PREVIEW_CHARS, long.length],
      [d("2"), null, null],
    ]);
    const three = await findDocumentWithPreview(store.reader, d("3"));
    expect([three?.id, three?.preview, three?.collectionId]).toEqual([d("3"), "short", other.collectionId]);
    expect(await findDocumentWithPreview(store.reader, "nothing")).toBeUndefined();

    await store.atomically(async (tx) => {
      await setDocumentProgress(tx, d("1"), 3, 9, "pages");
      await updateDocument(tx, d("1"), { status: "processing", metadata: '{"k":"v"}' });
    });
    let one = await findDocumentById(store.reader, d("1"));
    expect([one?.status, one?.progressDone, one?.progressTotal, one?.progressUnit, one?.metadata]).toEqual([
      "processing",
      3,
      9,
      "pages",
      '{"k":"v"}',
    ]);
    await store.atomically((tx) => markDocumentReady(tx, d("1"), 12, at(20)));
    one = await findDocumentById(store.reader, d("1"));
    expect([
      one?.status,
      one?.chunkCount,
      one?.progressDone,
      one?.progressUnit,
      one?.indexedAt,
      one?.updatedAt,
    ]).toEqual(["ready", 12, 12, "chunks", at(20), at(20)]);
    await store.atomically((tx) => updateDocument(tx, d("1"), { status: "failed", error: "boom" }));
    await store.atomically((tx) => markDocumentQueued(tx, d("1"), at(30)));
    one = await findDocumentById(store.reader, d("1"));
    expect([one?.status, one?.error, one?.progressDone, one?.progressTotal, one?.updatedAt]).toEqual([
      "queued",
      null,
      0,
      0,
      at(30),
    ]);

    // Uploads: listed from a time on, claimed or failed once.
    expect((await listAwaitingUploads(store.reader, at(10))).map((r) => r.id)).toContain(d("2"));
    expect((await listAwaitingUploads(store.reader, at(11))).map((r) => r.id)).not.toContain(d("2"));
    expect(await store.atomically((tx) => claimUpload(tx, d("2"), { filePath: "f/2" }))).toBe(true);
    expect(await store.atomically((tx) => claimUpload(tx, d("2"), { filePath: "f/3" }))).toBe(false);
    const two = await findDocumentById(store.reader, d("2"));
    expect([two?.status, two?.filePath]).toEqual(["queued", "f/2"]);
    expect(await store.atomically((tx) => failAwaitingUpload(tx, d("2"), "late", at(40)))).toBe(false);
    await store.atomically((tx) => updateDocument(tx, d("2"), { status: "awaiting_upload" }));
    expect(await store.atomically((tx) => failAwaitingUpload(tx, d("2"), "late", at(40)))).toBe(true);
    expect((await findDocumentById(store.reader, d("2")))?.error).toBe("late");

    // Failed documents: a rebuild's note, chunk counts zeroed, disk-full ones found (in any case).
    await store.atomically(async (tx) => {
      await updateDocument(tx, d("1"), {
        status: "failed",
        error: "The disk holding /data is full (12 MB free)",
        chunkCount: 4,
      });
      await markRebuildFailed(tx, collectionId, at(50));
      await zeroFailedChunkCounts(tx, collectionId);
    });
    one = await findDocumentById(store.reader, d("1"));
    expect([one?.error, one?.chunkCount, one?.updatedAt]).toEqual([
      "The disk holding /data is full (12 MB free); the re-index was abandoned and the previous index still answers",
      0,
      at(50),
    ]);
    expect((await findDocumentById(store.reader, d("2")))?.error).toBe(
      "late; the re-index was abandoned and the previous index still answers",
    );
    expect((await findDocumentById(store.reader, d("3")))?.chunkCount).toBe(0);
    const forSpace = (await documentsFailedForSpace(store.reader)).map((r) => r.id);
    expect(forSpace).toContain(d("1"));
    expect(forSpace).not.toContain(d("2"));

    await store.atomically((tx) => deleteDocumentRow(tx, d("1")));
    expect(await findDocumentById(store.reader, d("1"))).toBeUndefined();
    expect(await findDocumentText(store.reader, d("1"))).toBeNull();
  });

  test(`${name}: the documents API: by external id, a page with its total, texts, tasks and same content`, async () => {
    const { collectionId } = await seedPipeline(store);
    const d = (s: string) => `${name}-ext-${s}`;
    await store.atomically(async (tx) => {
      for (let i = 1; i <= 5; i++)
        await insertDocument(
          tx,
          doc(collectionId, {
            id: d(String(i)),
            externalId: `e${i}`,
            status: i % 2 ? "ready" : "failed",
            updatedAt: at(100 - i),
            contentHash: i <= 3 ? "same" : `h${i}`,
          }),
        );
    });
    expect((await findDocumentByExternalId(store.reader, collectionId, "e3"))?.id).toBe(d("3"));
    expect(await findDocumentByExternalId(store.reader, collectionId, "e9")).toBeUndefined();

    const page1 = await listDocumentPage(store.reader, collectionId, { page: 1, pageSize: 2 });
    expect([page1.rows.map((r) => r.id), page1.total]).toEqual([[d("5"), d("4")], 5]);
    const page3 = await listDocumentPage(store.reader, collectionId, { page: 3, pageSize: 2 });
    expect([page3.rows.map((r) => r.id), page3.total]).toEqual([[d("1")], 5]);
    const ready = await listDocumentPage(store.reader, collectionId, { status: "ready", page: 1, pageSize: 10 });
    expect([ready.rows.map((r) => r.id), ready.total]).toEqual([[d("5"), d("3"), d("1")], 3]);
    const since = await listDocumentPage(store.reader, collectionId, { updatedSince: at(97), page: 1, pageSize: 10 });
    expect([since.rows.map((r) => r.id), since.total]).toEqual([[d("2"), d("1")], 2]);
    const none = await listDocumentPage(store.reader, "no-collection", { page: 1, pageSize: 10 });
    expect(none).toEqual({ rows: [], total: 0 });

    await store.atomically((tx) => replaceDocumentText(tx, d("1"), "first"));
    await store.atomically((tx) => replaceDocumentText(tx, d("1"), "second"));
    expect(await findDocumentText(store.reader, d("1"))).toBe("second");
    await store.atomically((tx) => replaceDocumentText(tx, d("1"), null));
    expect(await findDocumentText(store.reader, d("1"))).toBeNull();

    await store.atomically(async (tx) => {
      await addTask(tx, `${d("1")}-t1`, d("1"), collectionId, "queued");
      await addTask(tx, `${d("1")}-t2`, d("1"), collectionId, "processing");
      await addTask(tx, `${d("1")}-t3`, d("1"), collectionId, "succeeded");
      await addTask(tx, `${d("2")}-t1`, d("2"), collectionId, "queued");
    });
    await store.atomically((tx) => dropPendingTasksOfDocument(tx, d("1")));
    expect(await taskIdsOf(store.reader, d("1"))).toEqual([`${d("1")}-t3`]);
    expect(await taskIdsOf(store.reader, d("2"))).toEqual([`${d("2")}-t1`]);

    // d2 failed (does not count), d1 and d3 share the hash: the lowest id other than the asker.
    expect((await findSameContent(store.reader, collectionId, "same", d("3")))?.id).toBe(d("1"));
    expect((await findSameContent(store.reader, collectionId, "same", d("1")))?.id).toBe(d("3"));
    expect(await findSameContent(store.reader, collectionId, "h5", d("5"))).toBeUndefined();
  });

  test(`${name}: source fetch state: saved, patched, due, and a crawl's pages`, async () => {
    const { collectionId } = await seedPipeline(store);
    const d = (s: string) => `${name}-sf-${s}`;
    await store.atomically(async (tx) => {
      await insertDocument(tx, doc(collectionId, { id: d("crawl"), type: "url", url: "https://a.example/" }));
      await insertDocument(
        tx,
        doc(collectionId, { id: d("p1"), type: "url", url: "https://a.example/1", contentHash: "c1" }),
      );
      await insertDocument(tx, doc(collectionId, { id: d("p2"), type: "url", url: null }));
      await insertDocument(tx, doc(collectionId, { id: d("single"), type: "api", url: "https://b.example/" }));
    });
    await store.atomically(async (tx) => {
      await saveSourceFetch(tx, d("single"), {});
      await saveSourceFetch(tx, d("single"), {}); // a second empty save changes nothing
      await saveSourceFetch(tx, d("crawl"), { refreshEvery: 3600, nextCheckAt: at(-100), crawl: '{"depth":2}' });
      await saveSourceFetch(tx, d("p1"), { crawlSourceId: d("crawl"), etag: '"e1"', lastModified: "Tue, 1 Jan 2030" });
      await saveSourceFetch(tx, d("p2"), { crawlSourceId: d("crawl") });
    });
    expect(await findSourceFetch(store.reader, d("single"))).toEqual({
      documentId: d("single"),
      refreshEvery: null,
      nextCheckAt: null,
      lastCheckedAt: null,
      lastChangedAt: null,
      etag: null,
      lastModified: null,
      crawl: null,
      crawlReport: null,
      crawlSourceId: null,
    });
    await store.atomically((tx) => saveSourceFetch(tx, d("single"), { nextCheckAt: at(-50), lastCheckedAt: at(-60) }));
    const single = await findSourceFetch(store.reader, d("single"));
    expect([single?.nextCheckAt, single?.lastCheckedAt, single?.refreshEvery]).toEqual([at(-50), at(-60), null]);
    expect(await findSourceFetch(store.reader, d("p9"))).toBeUndefined();

    const many = await sourceFetchesOf(store.reader, [d("crawl"), d("p1"), d("none")]);
    expect([...many.keys()].sort()).toEqual([d("crawl"), d("p1")]);
    expect([many.get(d("crawl"))?.refreshEvery, many.get(d("crawl"))?.crawl]).toEqual([3600, '{"depth":2}']);

    const mine = (rows: { documentId: string }[]) => rows.map((r) => r.documentId).filter((id) => id.startsWith(d("")));
    expect(mine(await dueRefetches(store.reader, at(0), 10))).toEqual([d("crawl"), d("single")]);
    expect(mine(await dueRefetches(store.reader, at(-70), 10))).toEqual([d("crawl")]);
    expect(mine(await overdueRefetches(store.reader, at(0)))).toEqual([d("crawl"), d("single")]);

    const pages = (await crawledPagesOf(store.reader, d("crawl"))).sort((a, b) =>
      a.documentId.localeCompare(b.documentId),
    );
    expect(pages).toEqual([
      {
        documentId: d("p1"),
        url: "https://a.example/1",
        contentHash: "c1",
        etag: '"e1"',
        lastModified: "Tue, 1 Jan 2030",
      },
      { documentId: d("p2"), url: "", contentHash: null, etag: null, lastModified: null },
    ]);
    expect((await crawledPageIds(store.reader, d("crawl"))).sort()).toEqual([d("p1"), d("p2")]);
    expect(await crawledPageIds(store.reader, d("single"))).toEqual([]);
  });
}

test("both engines ran where PostgreSQL is installed", () => {
  expect(engines.map((e) => e.name)).toEqual(havePostgres ? ["sqlite", "postgres"] : ["sqlite"]);
});
