/**
 * The event log and webhooks (db/repo/events.ts), the metadata summary's queries
 * (db/repo/metadata-keys.ts), the sources of search hits (db/repo/result-sources.ts) and
 * pages of documents (db/repo/document-pages.ts) through the same repository functions
 * on SQLite and PostgreSQL (support/engines.ts): what each call returns, on both engines.
 */
import { afterAll, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import type { Db } from "../src/db/client";
import { tables } from "../src/db/dialect";
import { countDocumentsByStatus, countDocumentsMatching, findDocumentPage } from "../src/db/repo/document-pages";
import {
  attemptsOf,
  collectionsWithWebhooks,
  deleteWebhook,
  dueDeliveries,
  eventsAfter,
  findEvent,
  findWebhook,
  insertCollectionEvent,
  insertDelivery,
  insertSourceEvent,
  insertSourceEvents,
  insertSourceEventsCounted,
  insertWebhook,
  lastEventId,
  listDeliveries,
  listWebhooks,
  oldestEventId,
  pruneDeliveries,
  pruneEvents,
  recordAttempt,
  webhookTargets,
} from "../src/db/repo/events";
import { metadataKeys, metadataStamp, topMetadataValues } from "../src/db/repo/metadata-keys";
import { findResultSources } from "../src/db/repo/result-sources";
import type { DocumentRow } from "../src/db/schema";
import { openEngines, seedPipeline } from "./support/engines";
import { havePostgres } from "./support/postgres";

const { engines, close } = await openEngines();
afterAll(close);

const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();

/** Stores a document row (and a text source's content) with drizzle, apart from documents.ts. */
async function addDocument(
  tx: Db,
  d: Partial<DocumentRow> & Pick<DocumentRow, "collectionId" | "name">,
  content?: string,
): Promise<string> {
  const { documents, documentTexts } = tables(tx);
  const id = d.id ?? Bun.randomUUIDv7();
  await tx.insert(documents).values({
    type: "text",
    status: "ready",
    createdAt: at(0),
    updatedAt: at(0),
    ...d,
    id,
  });
  if (content !== undefined) await tx.insert(documentTexts).values({ documentId: id, content });
  return id;
}

async function eventCount(db: Db): Promise<number> {
  const { events } = tables(db);
  const [row] = await db.select({ n: count() }).from(events);
  return row!.n;
}

for (const { name, store } of engines) {
  test(`${name}: events about documents take the row's collection, external id and status, in the order given`, async () => {
    const { collectionId } = await seedPipeline(store);
    const [d1, d2, d3] = await store.atomically(async (tx) => [
      await addDocument(tx, { collectionId, name: "one", externalId: "ext-1", status: "queued" }),
      await addDocument(tx, { collectionId, name: "two", status: "processing" }),
      await addDocument(tx, { collectionId, name: "three", status: "ready" }),
    ]);
    const before = await lastEventId(store.reader);

    const first = await store.atomically((tx) =>
      insertSourceEvent(tx, { type: "source.queued", documentId: d1!, data: "{}", now: at(1) }),
    );
    expect(typeof first).toBe("number");
    expect(first!).toBeGreaterThan(before);
    const given = await store.atomically((tx) =>
      insertSourceEvent(tx, {
        type: "source.failed",
        documentId: d1!,
        status: "failed",
        data: '{"error":"x"}',
        now: at(2),
      }),
    );
    expect(given).toBe(first! + 1);
    expect(
      await store.atomically((tx) =>
        insertSourceEvent(tx, { type: "source.ready", documentId: "gone", data: "{}", now: at(3) }),
      ),
    ).toBeNull();
    expect(await findEvent(store.reader, first!)).toEqual({
      id: first!,
      collectionId,
      type: "source.queued",
      documentId: d1!,
      externalId: "ext-1",
      status: "queued",
      data: "{}",
      createdAt: at(1),
    });
    expect((await findEvent(store.reader, given!))?.status).toBe("failed");
    expect(await findEvent(store.reader, 987654321)).toBeUndefined();

    // Many at once: in the order of the ids, a missing one skipped, ids as numbers.
    const rows = await store.atomically((tx) =>
      insertSourceEvents(tx, { type: "source.ready", documentIds: [d3!, "gone", d2!, d1!], now: at(4) }),
    );
    expect(rows.map((r) => [r.documentId, r.status, r.externalId, r.collectionId, r.data, r.createdAt])).toEqual([
      [d3!, "ready", null, collectionId, "{}", at(4)],
      [d2!, "processing", null, collectionId, "{}", at(4)],
      [d1!, "queued", "ext-1", collectionId, "{}", at(4)],
    ]);
    expect(rows.map((r) => r.id)).toEqual([given! + 1, given! + 2, given! + 3]);
    expect(
      await store.atomically((tx) =>
        insertSourceEventsCounted(tx, { type: "source.processing", documentIds: [d2!, "gone", d3!], now: at(5) }),
      ),
    ).toBe(2);
    expect(
      await store.atomically((tx) => insertSourceEventsCounted(tx, { type: "x", documentIds: [], now: at(5) })),
    ).toBe(0);

    const whole = await store.atomically((tx) =>
      insertCollectionEvent(tx, { collectionId, type: "reindex.completed", status: "ready", data: "{}", now: at(6) }),
    );
    expect(whole).toBe(given! + 6);
    expect(await lastEventId(store.reader)).toBe(whole);
    const reindex = await findEvent(store.reader, whole);
    expect([reindex?.documentId, reindex?.externalId, reindex?.status]).toEqual([null, null, "ready"]);

    // Paging after an id, oldest first.
    const page1 = await eventsAfter(store.reader, collectionId, before, 3);
    expect(page1.map((e) => e.id)).toEqual([first!, given!, given! + 1]);
    expect(page1[0]).toEqual((await findEvent(store.reader, first!))!);
    const page2 = await eventsAfter(store.reader, collectionId, page1[2]!.id, 10);
    expect(page2.map((e) => [e.type, e.documentId])).toEqual([
      ["source.ready", d2!],
      ["source.ready", d1!],
      ["source.processing", d2!],
      ["source.processing", d3!],
      ["reindex.completed", null],
    ]);
    expect(await eventsAfter(store.reader, collectionId, whole, 10)).toEqual([]);
    expect(await oldestEventId(store.reader, collectionId)).toBe(first!);
    expect(await oldestEventId(store.reader, "no-such-collection")).toBeNull();
  });

  test(`${name}: pruning drops events older than the cutoff, then all but a collection's newest`, async () => {
    const { collectionId } = await seedPipeline(store);
    const doc = await store.atomically((tx) => addDocument(tx, { collectionId, name: "pruned" }));
    const old = new Date(Date.UTC(2001, 0, 1)).toISOString();
    const ids: number[] = [];
    await store.atomically(async (tx) => {
      for (let i = 0; i < 2; i++)
        ids.push((await insertSourceEvent(tx, { type: "source.queued", documentId: doc, data: "{}", now: old }))!);
      for (let i = 0; i < 10; i++)
        ids.push(
          await insertCollectionEvent(tx, {
            collectionId,
            type: "reindex.completed",
            status: "ready",
            data: "{}",
            now: at(i),
          }),
        );
    });
    // The first test's collection keeps 8 events (none old), so only this one's are pruned:
    // its 2 old ones, then the oldest 2 of its 10 newer ones.
    const total = await eventCount(store.reader);
    const pruned = await store.atomically((tx) => pruneEvents(tx, new Date(Date.UTC(2002, 0, 1)).toISOString(), 8));
    expect(pruned).toBe(4);
    expect(await eventCount(store.reader)).toBe(total - 4);
    expect((await eventsAfter(store.reader, collectionId, 0, 100)).map((e) => e.id)).toEqual(ids.slice(4));
    expect(await oldestEventId(store.reader, collectionId)).toBe(ids[4]!);
    expect(await store.atomically((tx) => pruneEvents(tx, old, 8))).toBe(0);
  });

  test(`${name}: webhooks, their deliveries and attempts: listed, due, recorded, pruned`, async () => {
    const { collectionId } = await seedPipeline(store);
    const other = await seedPipeline(store);
    const hookA = Bun.randomUUIDv7();
    const hookB = Bun.randomUUIDv7();
    await store.atomically(async (tx) => {
      await insertWebhook(tx, {
        id: hookA,
        collectionId,
        url: "https://example.com/a",
        events: '["source.ready"]',
        description: "first",
        secret: "s1",
        createdAt: at(0),
      });
      await insertWebhook(tx, {
        id: hookB,
        collectionId,
        url: "https://example.com/b",
        events: null,
        description: null,
        secret: "s2",
        createdAt: at(1),
      });
    });
    expect((await listWebhooks(store.reader, collectionId)).map((w) => [w.id, w.events, w.description])).toEqual([
      [hookA, '["source.ready"]', "first"],
      [hookB, null, null],
    ]);
    expect(await findWebhook(store.reader, collectionId, hookB)).toEqual({
      id: hookB,
      collectionId,
      url: "https://example.com/b",
      events: null,
      description: null,
      secret: "s2",
      createdAt: at(1),
    });
    expect(await findWebhook(store.reader, other.collectionId, hookB)).toBeUndefined();
    const hooked = await collectionsWithWebhooks(store.reader);
    expect(hooked.filter((c) => c === collectionId)).toEqual([collectionId]);
    expect(hooked).not.toContain(other.collectionId);
    expect((await webhookTargets(store.reader, collectionId)).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: hookA, events: '["source.ready"]' },
      { id: hookB, events: null },
    ]);
    expect(await webhookTargets(store.reader, other.collectionId)).toEqual([]);

    const e1 = await store.atomically((tx) =>
      insertCollectionEvent(tx, { collectionId, type: "reindex.completed", status: "ready", data: "{}", now: at(0) }),
    );
    const [d1, d2, d3] = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    await store.atomically(async (tx) => {
      await insertDelivery(tx, {
        id: d1,
        webhookId: hookA,
        eventId: e1,
        eventType: "source.ready",
        payload: '{"n":1}',
        now: at(10),
      });
      await insertDelivery(tx, {
        id: d2,
        webhookId: hookA,
        eventId: e1 + 1,
        eventType: "source.ready",
        payload: '{"n":2}',
        now: at(20),
      });
      await insertDelivery(tx, {
        id: d3,
        webhookId: hookB,
        eventId: e1,
        eventType: "source.ready",
        payload: '{"n":3}',
        now: at(30),
      });
    });
    const listed = await listDeliveries(store.reader, hookA, 10);
    expect(listed.map((d) => [d.id, d.eventId, d.status, d.attempts, d.nextAttemptAt, d.createdAt])).toEqual([
      [d2, e1 + 1, "pending", 0, at(20), at(20)],
      [d1, e1, "pending", 0, at(10), at(10)],
    ]);
    expect(typeof listed[0]!.eventId).toBe("number");
    expect((await listDeliveries(store.reader, hookA, 1)).map((d) => d.id)).toEqual([d2]);

    const mine = <T extends { delivery: { webhookId: string } }>(rows: T[]) =>
      rows.filter((r) => r.delivery.webhookId === hookA || r.delivery.webhookId === hookB);
    const due = mine(await dueDeliveries(store.reader, at(25), 100));
    expect(due.map((r) => [r.delivery.id, r.webhook.id, r.webhook.secret])).toEqual([
      [d1, hookA, "s1"],
      [d2, hookA, "s1"],
    ]);

    await store.atomically((tx) =>
      recordAttempt(
        tx,
        { deliveryId: d1, attempt: 1, at: at(11), statusCode: 500, error: "not now", durationMs: 12 },
        { attempts: 1, nextAttemptAt: at(40), lastStatusCode: 500, lastError: "not now" },
      ),
    );
    await store.atomically((tx) =>
      recordAttempt(
        tx,
        { deliveryId: d1, attempt: 2, at: at(41), statusCode: 204, error: null, durationMs: 5 },
        {
          status: "delivered",
          attempts: 2,
          nextAttemptAt: null,
          lastStatusCode: 204,
          lastError: null,
          deliveredAt: at(41),
        },
      ),
    );
    await store.atomically((tx) =>
      recordAttempt(
        tx,
        { deliveryId: d3, attempt: 1, at: at(31), statusCode: null, error: "refused", durationMs: 3 },
        { status: "failed", attempts: 1, nextAttemptAt: null, lastError: "refused" },
      ),
    );
    const tries = await attemptsOf(store.reader, [d1, d2, d3]);
    expect([...tries.keys()].sort()).toEqual([d1, d3].sort());
    const d1Tries = tries.get(d1)!;
    expect(d1Tries.map((a) => [a.attempt, a.at, a.statusCode, a.error, a.durationMs])).toEqual([
      [1, at(11), 500, "not now", 12],
      [2, at(41), 204, null, 5],
    ]);
    expect(typeof d1Tries[0]!.id).toBe("number");
    expect(d1Tries[1]!.id).toBeGreaterThan(d1Tries[0]!.id);
    expect(tries.get(d3)!.map((a) => [a.statusCode, a.error])).toEqual([[null, "refused"]]);
    expect((await attemptsOf(store.reader, [])).size).toBe(0);

    const after = await listDeliveries(store.reader, hookA, 10);
    expect(after.map((d) => [d.id, d.status, d.attempts, d.lastStatusCode, d.deliveredAt])).toEqual([
      [d2, "pending", 0, null, null],
      [d1, "delivered", 2, 204, at(41)],
    ]);
    expect(mine(await dueDeliveries(store.reader, at(100), 100)).map((r) => r.delivery.id)).toEqual([d2]);

    // Settled deliveries created by the cutoff go; pending ones stay.
    expect(await store.atomically((tx) => pruneDeliveries(tx, at(15)))).toBe(1);
    expect((await listDeliveries(store.reader, hookA, 10)).map((d) => d.id)).toEqual([d2]);
    expect(await store.atomically((tx) => pruneDeliveries(tx, at(100)))).toBe(1);
    expect(await listDeliveries(store.reader, hookB, 10)).toEqual([]);
    expect((await attemptsOf(store.reader, [d1, d3])).size).toBe(0);

    await store.atomically((tx) => deleteWebhook(tx, hookA));
    expect((await listWebhooks(store.reader, collectionId)).map((w) => w.id)).toEqual([hookB]);
    expect(await listDeliveries(store.reader, hookA, 10)).toEqual([]);
  });

  test(`${name}: the metadata summary's keys, types, ranges, top values and stamp`, async () => {
    const { collectionId } = await seedPipeline(store);
    const other = await seedPipeline(store);
    expect(await metadataStamp(store.reader, collectionId)).toBe("");
    await store.atomically(async (tx) => {
      const doc = (metadata: string, updatedAt: string) =>
        addDocument(tx, { collectionId, name: "m", metadata, updatedAt });
      await doc('{"team":"hr","year":2020,"score":1.5,"tags":["a","B"],"draft":true,"n":{"x":1}}', at(1));
      await doc('{"team":"hr","year":2024,"score":2,"tags":["B","c"],"draft":false,"big":1e+21}', at(3));
      await doc('{"team":"ops","year":"unknown","tags":["a",7],"empty":null}', at(2));
      await doc("{}", at(0));
      await addDocument(tx, {
        collectionId: other.collectionId,
        name: "x",
        metadata: '{"team":"elsewhere"}',
        updatedAt: at(9),
      });
    });
    expect(await metadataStamp(store.reader, collectionId)).toBe(at(3));

    const keys = (await metadataKeys(store.reader, collectionId)).sort(
      (a, b) => a.key.localeCompare(b.key) || a.type.localeCompare(b.type),
    );
    expect(keys).toEqual([
      { key: "big", type: "real", sources: 1, min: 1e21, max: 1e21 },
      { key: "draft", type: "false", sources: 1, min: null, max: null },
      { key: "draft", type: "true", sources: 1, min: null, max: null },
      { key: "empty", type: "null", sources: 1, min: null, max: null },
      { key: "n", type: "object", sources: 1, min: null, max: null },
      { key: "score", type: "integer", sources: 1, min: 2, max: 2 },
      { key: "score", type: "real", sources: 1, min: 1.5, max: 1.5 },
      { key: "tags", type: "array", sources: 3, min: null, max: null },
      { key: "team", type: "text", sources: 3, min: null, max: null },
      { key: "year", type: "integer", sources: 2, min: 2020, max: 2024 },
      { key: "year", type: "text", sources: 1, min: null, max: null },
    ]);

    // Ties rank by the value's bytes: "B" before "a".
    expect(await topMetadataValues(store.reader, collectionId, 10)).toEqual([
      { key: "tags", value: "B", sources: 2, distinct: 3 },
      { key: "tags", value: "a", sources: 2, distinct: 3 },
      { key: "tags", value: "c", sources: 1, distinct: 3 },
      { key: "team", value: "hr", sources: 2, distinct: 2 },
      { key: "team", value: "ops", sources: 1, distinct: 2 },
      { key: "year", value: "unknown", sources: 1, distinct: 1 },
    ]);
    expect(await topMetadataValues(store.reader, collectionId, 1)).toEqual([
      { key: "tags", value: "B", sources: 2, distinct: 3 },
      { key: "team", value: "hr", sources: 2, distinct: 2 },
      { key: "year", value: "unknown", sources: 1, distinct: 1 },
    ]);
    expect(await metadataKeys(store.reader, "no-such-collection")).toEqual([]);
  });

  test(`${name}: the sources of search hits, with the columns a result shows`, async () => {
    const { collectionId } = await seedPipeline(store);
    const [a, b] = await store.atomically(async (tx) => [
      await addDocument(tx, {
        collectionId,
        type: "url",
        name: "a page",
        url: "https://example.com/a",
        externalId: "ext-a",
        metadata: '{"team":"hr"}',
      }),
      await addDocument(tx, { collectionId, type: "file", name: "a file", fileName: "a.pdf" }),
    ]);
    const found = await findResultSources(store.reader, [a!, "gone", b!]);
    const byId = Object.fromEntries(found.map((d) => [d.id, d]));
    expect(Object.keys(byId).sort()).toEqual([a!, b!].sort());
    expect(byId[a!]).toEqual({
      id: a!,
      collectionId,
      type: "url",
      name: "a page",
      url: "https://example.com/a",
      fileName: null,
      externalId: "ext-a",
      metadata: '{"team":"hr"}',
      status: expect.any(String),
      updatedAt: expect.any(String),
      indexedAt: null,
    });
    expect(byId[b!]).toEqual({
      id: b!,
      collectionId,
      type: "file",
      name: "a file",
      url: null,
      fileName: "a.pdf",
      externalId: null,
      metadata: "{}",
      status: expect.any(String),
      updatedAt: expect.any(String),
      indexedAt: null,
    });
    expect(await findResultSources(store.reader, [])).toEqual([]);
  });

  test(`${name}: pages of documents with previews, filtered by name and status, and counted`, async () => {
    const { collectionId } = await seedPipeline(store);
    const long = "x".repeat(2500);
    const ids = await store.atomically(async (tx) => [
      await addDocument(tx, { collectionId, name: "Report 100% final", status: "ready", chunkCount: 3 }, "first text"),
      await addDocument(tx, { collectionId, name: "report_2", status: "failed" }, long),
      await addDocument(tx, { collectionId, type: "url", name: "Other", status: "queued", url: "https://e.com" }),
      await addDocument(tx, { collectionId, name: "REPORT 3", status: "ready", chunkCount: 4 }, "third"),
    ]);
    const page = await findDocumentPage(store.reader, { collectionId, limit: 10, offset: 0 });
    expect(page.map((d) => [d.id, d.name, d.status, d.preview])).toEqual([
      [ids[0], "Report 100% final", "ready", "first text"],
      [ids[1], "report_2", "failed", "x".repeat(2000)],
      [ids[2], "Other", "queued", null],
      [ids[3], "REPORT 3", "ready", "third"],
    ]);
    expect(page[2]!.url).toBe("https://e.com");
    const names = async (f: Partial<Parameters<typeof findDocumentPage>[1]>) =>
      (await findDocumentPage(store.reader, { collectionId, limit: 10, offset: 0, ...f })).map((d) => d.name);
    expect(await names({ nameContains: "report" })).toEqual(["Report 100% final", "report_2", "REPORT 3"]);
    expect(await names({ nameContains: "100%" })).toEqual(["Report 100% final"]);
    expect(await names({ nameContains: "t_" })).toEqual(["report_2"]);
    expect(await names({ nameContains: "%" })).toEqual(["Report 100% final"]);
    expect(await names({ statuses: ["ready", "queued"], newestFirst: true })).toEqual([
      "REPORT 3",
      "Other",
      "Report 100% final",
    ]);
    expect(await names({ nameContains: "REPORT", statuses: ["ready"], limit: 1, offset: 1 })).toEqual(["REPORT 3"]);

    expect(await countDocumentsMatching(store.reader, { collectionId })).toBe(4);
    expect(await countDocumentsMatching(store.reader, { collectionId, nameContains: "rEpOrT" })).toBe(3);
    expect(
      await countDocumentsMatching(store.reader, { collectionId, nameContains: "report", statuses: ["failed"] }),
    ).toBe(1);
    expect(await countDocumentsMatching(store.reader, { collectionId, nameContains: "_" })).toBe(1);
    expect((await countDocumentsByStatus(store.reader, collectionId)).counts).toEqual({
      awaiting_upload: 0,
      queued: 1,
      processing: 0,
      ready: 2,
      failed: 1,
    });
    expect(await countDocumentsByStatus(store.reader, "no-such-collection")).toEqual({
      counts: { awaiting_upload: 0, queued: 0, processing: 0, ready: 0, failed: 0 },
      chunks: { ready: 0, done: 0, total: 0 },
    });
    // Chunks: of the ready ones, and done of expected of those processing; OCR pages are not chunks.
    await store.atomically(async (tx) => {
      await addDocument(tx, { collectionId, name: "Big", status: "processing", progressDone: 5, progressTotal: 12 });
      const scan = { progressDone: 2, progressTotal: 9, progressUnit: "pages" as const };
      await addDocument(tx, { collectionId, name: "Scan", status: "processing", ...scan });
    });
    expect((await countDocumentsByStatus(store.reader, collectionId)).chunks).toEqual({ ready: 7, done: 5, total: 12 });
  });
}

test("both engines ran where PostgreSQL is installed", () => {
  expect(engines.map((e) => e.name)).toEqual(havePostgres ? ["sqlite", "postgres"] : ["sqlite"]);
});
