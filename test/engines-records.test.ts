/**
 * Documents and their texts, the documents API's look-ups, source fetch state, collections
 * with their derived stats, API keys, the administration's guarded changes and audit log,
 * and evaluation sets and runs (db/repo/{documents,external-documents,source-fetches,
 * collections,api-keys,admin,evals}.ts) through the same repository functions on SQLite
 * and PostgreSQL (support/engines.ts): what each call returns, on both engines.
 */
import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "../src/db/client";
import { tables } from "../src/db/dialect";
import {
  collectionIdsOf,
  collectionOwnerActive,
  deleteUserRow,
  findUserWithStats,
  insertAudit,
  listAudit,
  listUsersWithStats,
  updateUserAdmin,
  updateUserDisabled,
  updateUserPassword,
  updateUserTierById,
} from "../src/db/repo/admin";
import {
  deleteApiKey,
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  touchApiKeys,
} from "../src/db/repo/api-keys";
import {
  countCollections,
  deleteCollectionRow,
  findCollection,
  findCollectionById,
  findOwnedCollection,
  insertCollection,
  listCollectionModels,
  listCollections,
  updateCollection,
} from "../src/db/repo/collections";
import {
  CONTENT_PREVIEW_CHARS,
  claimUpload,
  deleteDocumentRow,
  documentsFailedForSpace,
  failAwaitingUpload,
  findDocument,
  findDocumentById,
  findDocumentByExternalId,
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
  countEvalSets,
  deleteEvalSet,
  findEvalSet,
  insertEvalRun,
  insertEvalSet,
  latestEvalRuns,
  listEvalRuns,
  listEvalSets,
  listGatedCollectionIds,
} from "../src/db/repo/evals";
import {
  dropPendingTasksOfDocument,
  findDocumentByExternalId as findByExternalId,
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
  // First in the file: its first user is the install's first, hence its only administrator.
  test(`${name}: an install keeps one enabled administrator; users are listed with their counts`, async () => {
    const a = await seedPipeline(store);
    const b = await seedPipeline(store);
    await store.atomically((tx) =>
      insertDocument(tx, doc(a.collectionId, { id: `${name}-adm-d1`, status: "ready", chunkCount: 7 })),
    );
    await store.atomically((tx) =>
      insertDocument(tx, doc(a.collectionId, { id: `${name}-adm-d2`, status: "ready", chunkCount: 5 })),
    );
    const admin = () => store.atomically((tx) => updateUserAdmin(tx, a.userId, false));
    expect(await admin()).toBe("last_admin");
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, at(1)))).toBe("last_admin");
    expect(await store.atomically((tx) => updateUserAdmin(tx, "nobody", true))).toBe("missing");
    expect(await store.atomically((tx) => updateUserDisabled(tx, "nobody", at(1)))).toBe("missing");
    expect(await store.atomically((tx) => updateUserAdmin(tx, b.userId, true))).toBe("ok");
    expect(await admin()).toBe("ok");
    // b is the last enabled administrator now.
    expect(await store.atomically((tx) => updateUserDisabled(tx, b.userId, at(2)))).toBe("last_admin");
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, at(3)))).toBe("ok");
    // A user already disabled keeps the time it was first disabled.
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, at(4)))).toBe("ok");
    expect((await findUserWithStats(store.reader, a.userId))?.user.disabledAt).toBe(at(3));
    expect(await collectionOwnerActive(store.reader, a.collectionId)).toBe(false);
    expect(await collectionOwnerActive(store.reader, b.collectionId)).toBe(true);
    expect(await collectionOwnerActive(store.reader, "no-such-collection")).toBe(false);
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, null))).toBe("ok");
    expect(await collectionOwnerActive(store.reader, a.collectionId)).toBe(true);

    await store.atomically(async (tx) => {
      await updateUserTierById(tx, a.userId, "pro");
      await updateUserPassword(tx, a.userId, "new-hash", true);
    });
    const stats = await findUserWithStats(store.reader, a.userId);
    expect([stats?.user.tier, stats?.user.passwordHash, stats?.user.mustChangePassword, stats?.user.isAdmin]).toEqual([
      "pro",
      "new-hash",
      true,
      false,
    ]);
    expect([stats?.pipelineCount, stats?.chunkCount, stats?.user.disabledAt]).toEqual([1, 12, null]);
    expect(await findUserWithStats(store.reader, "nobody")).toBeUndefined();
    const all = (await listUsersWithStats(store.reader)).filter((u) => [a.userId, b.userId].includes(u.user.id));
    expect(all.map((u) => [u.user.id, u.user.isAdmin, u.pipelineCount, u.chunkCount])).toEqual([
      [a.userId, false, 1, 12],
      [b.userId, true, 1, 0],
    ]);
    expect(await collectionIdsOf(store.reader, a.userId)).toEqual([a.collectionId]);
    await store.atomically((tx) => deleteUserRow(tx, a.userId));
    expect(await findUserWithStats(store.reader, a.userId)).toBeUndefined();
    expect(await collectionIdsOf(store.reader, a.userId)).toEqual([]);
    expect(await findDocumentById(store.reader, `${name}-adm-d1`)).toBeUndefined();
  });

  test(`${name}: audit entries page newest first below an id, oldest first above one`, async () => {
    await store.atomically(async (tx) => {
      for (let i = 1; i <= 5; i++)
        await insertAudit(tx, {
          at: at(i),
          actorId: null,
          actor: "cli (root)",
          action: `a${i}`,
          targetId: null,
          targetEmail: null,
          details: JSON.stringify({ i }),
        });
    });
    const newest = await listAudit(store.reader, { limit: 3 });
    expect(newest.map((r) => r.action)).toEqual(["a5", "a4", "a3"]);
    expect(newest.every((r) => typeof r.id === "number")).toBe(true);
    expect(newest[0]?.details).toBe('{"i":5}');
    const older = await listAudit(store.reader, { limit: 3, before: newest[2]!.id });
    expect(older.map((r) => r.action)).toEqual(["a2", "a1"]);
    const after = await listAudit(store.reader, { limit: 2, after: older[1]!.id });
    expect(after.map((r) => r.action)).toEqual(["a2", "a3"]);
  });

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
    expect((await findByExternalId(store.reader, collectionId, "e3"))?.id).toBe(d("3"));
    expect(await findByExternalId(store.reader, collectionId, "e9")).toBeUndefined();

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

  test(`${name}: collections with their derived status and counts, listed, searched, paged and counted`, async () => {
    const { userId, collectionId: first } = await seedPipeline(store);
    const c = (s: string) => `${name}-col-${s}`;
    const base = {
      userId,
      kind: "pipeline" as const,
      description: null,
      chunkingStrategy: "recursive",
      chunkSize: 500,
      chunkOverlap: 50,
      embeddingModel: "builtin",
      indexModel: "builtin",
      vectorProvider: "lancedb",
      retrievalTopK: 5,
    };
    await store.atomically(async (tx) => {
      await insertCollection(tx, {
        ...base,
        id: c("a"),
        name: "Alpha Docs",
        createdAt: at(1),
        updatedAt: at(1),
        ocrLanguages: ["eng", "deu"],
      });
      await insertCollection(tx, {
        ...base,
        id: c("b"),
        name: "beta",
        createdAt: at(2),
        updatedAt: at(2),
        hybridAlpha: 0.25,
      });
      await insertCollection(tx, { ...base, id: c("c"), name: "GAMMA docs", createdAt: at(3), updatedAt: at(3) });
      await insertCollection(tx, {
        ...base,
        id: c("k"),
        kind: "kb",
        name: "kb docs",
        createdAt: at(4),
        updatedAt: at(4),
      });
      // a: ready (two documents, 3 + 4 chunks); b: processing; c: error; the seeded one: empty.
      await insertDocument(tx, doc(c("a"), { id: `${c("a")}-1`, status: "ready", chunkCount: 3 }));
      await insertDocument(tx, doc(c("a"), { id: `${c("a")}-2`, status: "ready", chunkCount: 4 }));
      await insertDocument(tx, doc(c("b"), { id: `${c("b")}-1`, status: "ready", chunkCount: 2 }));
      await insertDocument(tx, doc(c("b"), { id: `${c("b")}-2`, status: "processing" }));
      await insertDocument(tx, doc(c("b"), { id: `${c("b")}-3`, status: "failed" }));
      await insertDocument(tx, doc(c("c"), { id: `${c("c")}-1`, status: "failed" }));
    });
    const a = await findCollection(store.reader, userId, "pipeline", c("a"));
    expect([a?.status, a?.sourceCount, a?.chunkCount, a?.row.name, a?.row.ocrLanguages]).toEqual([
      "ready",
      2,
      7,
      "Alpha Docs",
      ["eng", "deu"],
    ]);
    const b = await findCollection(store.reader, userId, "pipeline", c("b"));
    expect([b?.status, b?.sourceCount, b?.chunkCount, b?.row.hybridAlpha]).toEqual(["processing", 3, 2, 0.25]);
    expect(await findCollection(store.reader, userId, "kb", c("a"))).toBeUndefined();
    expect(await findCollection(store.reader, "someone-else", "pipeline", c("a"))).toBeUndefined();

    expect((await findOwnedCollection(store.reader, userId, "pipeline", c("c")))?.name).toBe("GAMMA docs");
    expect(await findOwnedCollection(store.reader, userId, "kb", c("c"))).toBeUndefined();
    expect((await findCollectionById(store.reader, c("k")))?.kind).toBe("kb");
    expect(await findCollectionById(store.reader, c("none"))).toBeUndefined();

    const list = await listCollections(store.reader, { userId, kind: "pipeline", limit: 10, offset: 0 });
    expect([list.total, list.rows.map((r) => [r.row.id, r.status, r.sourceCount, r.chunkCount])]).toEqual([
      4,
      [
        [c("c"), "error", 1, 0],
        [c("b"), "processing", 3, 2],
        [c("a"), "ready", 2, 7],
        [first, "empty", 0, 0],
      ],
    ]);
    const paged = await listCollections(store.reader, { userId, kind: "pipeline", limit: 2, offset: 1 });
    expect([paged.total, paged.rows.map((r) => r.row.id)]).toEqual([4, [c("b"), c("a")]]);
    const search = await listCollections(store.reader, {
      userId,
      kind: "pipeline",
      search: "DOCS",
      limit: 10,
      offset: 0,
    });
    expect([search.total, search.rows.map((r) => r.row.id)]).toEqual([2, [c("c"), c("a")]]);
    for (const status of ["empty", "processing", "error", "ready"] as const) {
      const only = await listCollections(store.reader, { userId, kind: "pipeline", status, limit: 10, offset: 0 });
      expect([status, only.total, only.rows.map((r) => r.status)]).toEqual([status, 1, [status]]);
    }
    const kbs = await listCollections(store.reader, { userId, kind: "kb", search: "kb", limit: 10, offset: 0 });
    expect([kbs.total, kbs.rows.map((r) => [r.row.id, r.status])]).toEqual([1, [[c("k"), "empty"]]]);
    expect(await countCollections(store.reader, userId, "pipeline")).toBe(4);
    expect(await countCollections(store.reader, userId, "kb")).toBe(1);
    expect(await countCollections(store.reader, "nobody", "kb")).toBe(0);

    await store.atomically((tx) =>
      updateCollection(tx, c("a"), {
        name: "Renamed",
        buildingModel: "next-model",
        buildingGeneration: 2,
        updatedAt: at(9),
      }),
    );
    const renamed = await findCollectionById(store.reader, c("a"));
    expect([renamed?.name, renamed?.buildingGeneration, renamed?.updatedAt]).toEqual(["Renamed", 2, at(9)]);
    expect(await listCollectionModels(store.reader)).toContainEqual({
      embeddingModel: "builtin",
      indexModel: "builtin",
      buildingModel: "next-model",
    });
    await store.atomically((tx) => deleteCollectionRow(tx, c("a")));
    expect(await findCollectionById(store.reader, c("a"))).toBeUndefined();
    expect(await findDocumentById(store.reader, `${c("a")}-1`)).toBeUndefined();
    expect(await countCollections(store.reader, userId, "pipeline")).toBe(3);
  });

  test(`${name}: API keys by id and by hash with their pipeline, touched and deleted`, async () => {
    const { collectionId } = await seedPipeline(store);
    const k = (s: string) => `${name}-key-${s}`;
    const key = (id: string) => ({
      id,
      collectionId,
      name: `name ${id}`,
      prefix: "rk_",
      keyHash: `hash-${id}`,
      createdAt: at(0),
      lastUsedAt: null,
      scopes: '["query","ingest"]',
      expiresAt: null,
    });
    await store.atomically(async (tx) => {
      await insertApiKey(tx, key(k("1")));
      await insertApiKey(tx, key(k("2")));
    });
    expect((await listApiKeys(store.reader, collectionId)).map((r) => r.id)).toEqual([k("2"), k("1")]);
    expect(await findApiKey(store.reader, collectionId, k("1"))).toEqual(key(k("1")));
    expect(await findApiKey(store.reader, "other", k("1"))).toBeUndefined();
    const found = await findApiKeyByHash(store.reader, `hash-${k("2")}`);
    expect([found?.key.id, found?.collection.id, found?.collection.kind]).toEqual([k("2"), collectionId, "pipeline"]);
    expect(await findApiKeyByHash(store.reader, "hash-none")).toBeUndefined();
    await store.atomically((tx) =>
      touchApiKeys(
        tx,
        new Map([
          [k("1"), at(5)],
          [k("2"), at(6)],
        ]),
      ),
    );
    expect((await listApiKeys(store.reader, collectionId)).map((r) => r.lastUsedAt)).toEqual([at(6), at(5)]);
    await store.atomically((tx) => deleteApiKey(tx, k("2")));
    expect((await listApiKeys(store.reader, collectionId)).map((r) => r.id)).toEqual([k("1")]);
  });

  test(`${name}: evaluation sets and runs: counted, found, the newest N runs kept, gates listed`, async () => {
    const { collectionId } = await seedPipeline(store);
    const other = await seedPipeline(store);
    const s = (x: string) => `${name}-set-${x}`;
    const set = (id: string, cid = collectionId) => ({
      id,
      collectionId: cid,
      name: id,
      queries: '[{"query":"q","expectedSourceIds":["d"]}]',
      createdAt: at(0),
      updatedAt: at(0),
    });
    await store.atomically(async (tx) => {
      await insertEvalSet(tx, set(s("1")));
      await insertEvalSet(tx, set(s("2")));
      await insertEvalSet(tx, set(s("3"), other.collectionId));
    });
    expect((await listEvalSets(store.reader, collectionId)).map((r) => r.id)).toEqual([s("2"), s("1")]);
    expect(await countEvalSets(store.reader, collectionId)).toBe(2);
    expect(await countEvalSets(store.reader, "no-collection")).toBe(0);
    expect(await findEvalSet(store.reader, collectionId, s("1"))).toEqual(set(s("1")));
    expect(await findEvalSet(store.reader, collectionId, s("3"))).toBeUndefined();

    const run = (id: string, setId: string) => ({
      id,
      setId,
      kind: "run" as const,
      result: '{"recall":1}',
      createdAt: at(0),
    });
    for (let i = 1; i <= 5; i++) await store.atomically((tx) => insertEvalRun(tx, run(`${s("1")}-r${i}`, s("1")), 3));
    await store.atomically((tx) => insertEvalRun(tx, run(`${s("2")}-r1`, s("2")), 3));
    expect((await listEvalRuns(store.reader, s("1"), 10)).map((r) => r.id)).toEqual([
      `${s("1")}-r5`,
      `${s("1")}-r4`,
      `${s("1")}-r3`,
    ]);
    expect((await listEvalRuns(store.reader, s("1"), 1))[0]).toEqual(run(`${s("1")}-r5`, s("1")));
    const latest = await latestEvalRuns(store.reader, [s("1"), s("2"), s("3")]);
    expect([...latest].map(([set, r]) => [set, r.id])).toEqual([
      [s("1"), `${s("1")}-r5`],
      [s("2"), `${s("2")}-r1`],
    ]);

    await store.atomically((tx) => updateCollection(tx, other.collectionId, { reindexGate: s("3") }));
    const gated = await listGatedCollectionIds(store.reader);
    expect(gated).toContain(other.collectionId);
    expect(gated).not.toContain(collectionId);

    await store.atomically((tx) => deleteEvalSet(tx, s("1")));
    expect(await findEvalSet(store.reader, collectionId, s("1"))).toBeUndefined();
    expect(await listEvalRuns(store.reader, s("1"), 10)).toEqual([]);
    expect(await countEvalSets(store.reader, collectionId)).toBe(1);
  });
}

test("both engines ran where PostgreSQL is installed", () => {
  expect(engines.map((e) => e.name)).toEqual(havePostgres ? ["sqlite", "postgres"] : ["sqlite"]);
});
