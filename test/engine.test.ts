/**
 * The ingestion engine under change: deletes that land mid-ingestion, a re-index
 * that keeps serving the old index until it switches, PATCH that never re-indexes,
 * and writes that can be replayed without duplicating a chunk. LanceDB is read
 * directly (its own connection) so the test sees what is on disk.
 */
import { analyseChunk } from "../src/text/analyze";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { deleteCollectionRow, findCollectionById } from "../src/db/repo/collections";
import { findDocumentById } from "../src/db/repo/documents";
import type { RowOut } from "../src/ingest/job-types";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import {
  bytesOf,
  chunkRows,
  Client,
  duplicates,
  NO_DUPLICATES,
  tableNameOf,
  tablesOf,
  waitFor,
} from "./support/ingest";

let t: TestApp;
let c: Client;
let fake: FakeOllama;

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url, workers: 2 });
  c = await Client.create(t);
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

/** About `n` chunks of ~100 characters each with chunkSize 100. */
const longText = (tag: string, n: number) =>
  Array.from({ length: n * 3 }, (_, i) => `${tag} sentence ${i} is here.`).join(" ");

const sql = <T>(q: string, ...args: (string | number)[]) => t.services.db.reader.$client.query(q).all(...args) as T[];
const tasksOf = (documentId: string) => sql<{ id: string }>("SELECT id FROM tasks WHERE document_id = ?", documentId);
const collection = async (id: string) => (await findCollectionById(t.services.db.reader, id))!;

/** A slow-embedding pipeline whose long source is mid-flight: some rows written, more to come. */
async function midFlight(pipelineName: string) {
  const pid = await c.pipeline({
    name: pipelineName,
    embeddingModel: "ollama/all-minilm",
    chunkSize: 100,
    chunkOverlap: 0,
  });
  const { created, put } = await c.upload(pid, "long.txt", bytesOf(longText(pipelineName, 2000)));
  expect(put.status).toBe(200);
  await waitFor(
    "the first slice of rows to be committed",
    async () => (await t.services.vectorStore.countRows(pid, 1)) > 0,
  );
  const now = await c.source(pid, created.id);
  expect(now!.status).toBe("processing");
  expect(now!.progress.done).toBeLessThan(now!.progress.total);
  return { pid, sid: created.id };
}

/** Ingests a small text in a new pipeline to completion: every earlier write and worker slot has moved on. */
async function barrier(): Promise<void> {
  const pid = await c.pipeline({ name: "barrier" });
  const s = await c.addText(pid, "barrier text so the queues move on");
  expect((await c.settled(pid, s.id)).status).toBe("ready");
}

describe("deletes during ingestion", () => {
  test("deleting a source mid-ingestion leaves no rows, no file and no task", async () => {
    await fake.set({ latencyMs: 100 });
    try {
      const { pid, sid } = await midFlight("srcdel");
      const file = join(t.dataDir, "files", pid, sid);
      expect(existsSync(file)).toBe(true);
      const del = await c.call("DELETE", `/api/rag/pipelines/${pid}/sources/${sid}`);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ deleted: true, id: sid });

      const check = async () => {
        expect(await c.sources(pid)).toEqual([]);
        expect(await findDocumentById(t.services.db.reader, sid)).toBeUndefined();
        expect(tasksOf(sid)).toEqual([]);
        expect(existsSync(file)).toBe(false);
        expect(await t.services.vectorStore.countRows(pid, 1)).toBe(0);
        expect((await chunkRows(t.dataDir, pid, 1)).filter((r) => r.document_id === sid)).toEqual([]);
      };
      await check();
      // Let anything still in flight land, then look again: nothing may come back.
      const again = await c.addText(pid, "a later source in the same pipeline");
      expect((await c.settled(pid, again.id)).status).toBe("ready");
      await barrier();
      const rows = await chunkRows(t.dataDir, pid, 1);
      expect(rows.filter((r) => r.document_id === sid)).toEqual([]);
      expect(rows.every((r) => r.document_id === again.id)).toBe(true);
      expect(tasksOf(sid)).toEqual([]);
      expect(existsSync(file)).toBe(false);
      const p = await c.getPipeline(pid);
      expect(p).toMatchObject({ status: "ready", sourceCount: 1, chunkCount: rows.length });
    } finally {
      await fake.set({ latencyMs: 0 });
    }
  });

  test("deleting a pipeline mid-ingestion drops its tables and its files directory", async () => {
    await fake.set({ latencyMs: 100 });
    try {
      const { pid, sid } = await midFlight("pipedel");
      expect(await tablesOf(t.dataDir, pid)).toEqual([tableNameOf(pid, 1)]);
      expect(existsSync(join(t.dataDir, "files", pid))).toBe(true);
      const del = await c.call("DELETE", `/api/rag/pipelines/${pid}`);
      expect(del.body).toEqual({ deleted: true, id: pid });

      const check = async () => {
        expect(await tablesOf(t.dataDir, pid)).toEqual([]);
        expect(existsSync(join(t.dataDir, "files", pid))).toBe(false);
        expect(sql("SELECT id FROM documents WHERE collection_id = ?", pid)).toEqual([]);
        expect(sql("SELECT id FROM tasks WHERE collection_id = ?", pid)).toEqual([]);
        expect(tasksOf(sid)).toEqual([]);
        expect((await c.call("GET", `/api/rag/pipelines/${pid}`)).status).toBe(404);
      };
      await check();
      await barrier();
      await check();
    } finally {
      await fake.set({ latencyMs: 0 });
    }
  });
});

describe("sources created while their pipeline is deleted", () => {
  test("each create answers 201 or 404, and nothing of the pipeline is left: no row, text, task, table or file", async () => {
    const pid = await c.pipeline({ name: "racing" });
    const create = (i: number) =>
      c.call("POST", `/api/rag/pipelines/${pid}/sources`, { type: "text", content: `racing text ${i}` });
    // Some sources are in (and ingesting) before the delete; more arrive around it and after it.
    const early = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i)));
    for (const r of early) expect(r.status).toBe(201);
    const racing = Array.from({ length: 30 }, (_, i) => create(100 + i));
    const del = c.call("DELETE", `/api/rag/pipelines/${pid}`);
    const late = Array.from({ length: 30 }, (_, i) => create(200 + i));
    expect((await del).status).toBe(200);
    for (const r of await Promise.all([...racing, ...late])) expect([201, 404]).toContain(r.status);
    await barrier();
    expect(sql("SELECT id FROM documents WHERE collection_id = ?", pid)).toEqual([]);
    expect(sql("SELECT count(*) AS n FROM document_texts WHERE document_id NOT IN (SELECT id FROM documents)")).toEqual(
      [{ n: 0 }],
    );
    expect(sql("SELECT id FROM tasks WHERE collection_id = ?", pid)).toEqual([]);
    expect(await tablesOf(t.dataDir, pid)).toEqual([]);
    expect(existsSync(join(t.dataDir, "files", pid))).toBe(false);
  });
});

describe("a pipeline deleted between a create and its commit", () => {
  test("the create is refused (null), and neither its row, its text nor its task is stored", async () => {
    const pid = await c.pipeline({ name: "gone before commit" });
    const db = t.services.db;
    const id = Bun.randomUUIDv7();
    const stored = t.services.engine.createDocument(
      { id, collectionId: pid, type: "text", name: "late", contentLength: 4 },
      "late",
    );
    // Asked for in the same turn: it holds the write lock before the group commit runs.
    await db.atomically((tx) => deleteCollectionRow(tx, pid));
    expect(await stored).toBeNull();
    expect(sql("SELECT id FROM documents WHERE id = ?", id)).toEqual([]);
    expect(sql("SELECT document_id FROM document_texts WHERE document_id = ?", id)).toEqual([]);
    expect(tasksOf(id)).toEqual([]);
  });
});

describe("re-index", () => {
  let pid: string;
  let key: string;
  const before = new Map<string, number>();

  beforeAll(async () => {
    pid = await c.pipeline({
      name: "Reindexed",
      embeddingModel: "ollama/all-minilm",
      chunkSize: 1000,
      chunkOverlap: 0,
    });
    key = await c.key(pid);
    for (const word of ["aardvark", "bonobo", "capybara", "dugong"]) {
      await c.addText(
        pid,
        Array.from({ length: 40 }, (_, i) => `The ${word} fact number ${i} is worth knowing.`).join(" "),
        word,
      );
    }
    for (const s of await c.allSettled(pid)) {
      expect(s.status).toBe("ready");
      before.set(s.id, s.chunkCount);
    }
  });

  /** Lengths of the chunks a query returns. */
  async function resultLengths(query: string): Promise<number[]> {
    const r = await c.query(key, { query, topK: 10 });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
    return r.body.results.map((x: { content: string }) => x.content.length);
  }

  test("PATCH alone never re-indexes: same chunks, no tasks, same generation", async () => {
    const rowsBefore = await t.services.vectorStore.countRows(pid, 1);
    const chunkCount = (await c.getPipeline(pid)).chunkCount;
    expect(chunkCount).toBe(rowsBefore);
    const r = await c.call("PATCH", `/api/rag/pipelines/${pid}`, { chunkSize: 200, chunkOverlap: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ chunkSize: 200, chunkCount, status: "ready" });
    expect(sql("SELECT id FROM tasks WHERE collection_id = ? AND status IN ('queued','processing')", pid)).toEqual([]);
    expect(await collection(pid)).toMatchObject({ activeGeneration: 1, buildingGeneration: null });
    for (const s of await c.sources(pid)) expect(s).toMatchObject({ status: "ready", chunkCount: before.get(s.id) });
    expect(await t.services.vectorStore.countRows(pid, 1)).toBe(rowsBefore);
    for (const len of await resultLengths("capybara fact")) expect(len).toBeGreaterThan(200);
  });

  test("queries answer from the old index during the rebuild, from the new one after, and the old table is dropped", async () => {
    const oldRows = await t.services.vectorStore.countRows(pid, 1);
    await fake.set({ latencyMs: 700 });
    try {
      const r = await c.call("POST", `/api/rag/pipelines/${pid}/reindex`);
      expect(r.status).toBe(202);
      expect(r.body.pipeline).toMatchObject({ id: pid, status: "processing", chunkSize: 200 });
      expect(await collection(pid)).toMatchObject({ activeGeneration: 1, buildingGeneration: 2 });

      const during = await resultLengths("dugong fact number");
      // Still rebuilding when the answer came back: it was served by generation 1.
      expect((await collection(pid)).buildingGeneration).toBe(2);
      for (const len of during) expect(len).toBeGreaterThan(200);
      expect(await t.services.vectorStore.countRows(pid, 1)).toBe(oldRows);
    } finally {
      await fake.set({ latencyMs: 0 });
    }

    await waitFor("the switch to generation 2", async () => {
      const col = await collection(pid);
      return col.buildingGeneration === null && col.activeGeneration === 2;
    });
    const after = await c.allSettled(pid);
    let total = 0;
    for (const s of after) {
      expect(s.status).toBe("ready");
      expect(s.chunkCount).toBeGreaterThan(before.get(s.id)!);
      total += s.chunkCount;
    }
    expect((await c.getPipeline(pid)).chunkCount).toBe(total);
    expect(await t.services.vectorStore.countRows(pid, 2)).toBe(total);
    for (const len of await resultLengths("dugong fact number")) expect(len).toBeLessThanOrEqual(200);
    await waitFor("generation 1 to be dropped", async () => {
      const names = await tablesOf(t.dataDir, pid);
      return names.length === 1 && names[0] === tableNameOf(pid, 2);
    });
  });
});

/** Chunk rows for `documentId` as a worker would emit them (indexes from..to-1), 384-dimensional. */
function fakeRows(documentId: string, from: number, to: number, tag = "row"): RowOut[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const vector = new Float32Array(384);
    vector[i % 384] = 1;
    const text = `${tag} ${i}`;
    // As the worker writes them into a pipeline's table: with the text analysed.
    return {
      id: `${documentId}:${i}`,
      documentId,
      chunkIndex: i,
      text,
      start: 0,
      end: 1,
      vector,
      ...analyseChunk(text, "auto"),
    };
  });
}

/** Where a document's rows go in generation 1 of a pipeline, as the sink takes it. */
const table = (collectionId: string, documentId: string) => ({ collectionId, generation: 1, documentId });

const pendingTasks = (documentId: string) =>
  sql("SELECT id FROM tasks WHERE document_id = ? AND status IN ('queued','processing')", documentId).length;

/** A ready builtin-model source of more than one 512-row slice. */
async function multiSliceSource(name: string) {
  // builtin: the replayed rows below are 384-dimensional.
  const pid = await c.pipeline({ name, chunkSize: 50, chunkOverlap: 0, embeddingModel: "builtin" });
  const s = await c.addText(pid, longText(name, 700), name);
  const first = await c.settled(pid, s.id);
  expect(first.status).toBe("ready");
  expect(first.chunkCount).toBeGreaterThan(512); // later slices are appended, not replaced
  return { pid, sid: s.id, n: first.chunkCount };
}

describe("idempotent writes", () => {
  test("a document ingested again through the engine, run after run, keeps each chunk id once", async () => {
    const { pid, sid, n } = await multiSliceSource("again");
    for (let run = 0; run < 2; run++) {
      await t.services.engine.enqueue(sid);
      await waitFor("the run to finish", () => pendingTasks(sid) === 0);
      expect((await c.settled(pid, sid)).chunkCount).toBe(n);
      const rows = await chunkRows(t.dataDir, pid, 1);
      expect(duplicates(rows.map((r) => r.id))).toEqual(NO_DUPLICATES);
      expect(rows).toHaveLength(n);
    }
  });

  test("a slice replayed through the engine's sink, one commit after the other, keeps each chunk id once", async () => {
    const { pid, sid, n } = await multiSliceSource("replay");
    // As a crash between commit and acknowledgement would: the same later slice, twice.
    await t.services.engine.sink.append(table(pid, sid), fakeRows(sid, 520, 540));
    await t.services.engine.sink.append(table(pid, sid), fakeRows(sid, 520, 540));
    const rows = await chunkRows(t.dataDir, pid, 1);
    expect(duplicates(rows.map((r) => r.id))).toEqual(NO_DUPLICATES);
    expect(rows).toHaveLength(n);
    expect(await t.services.vectorStore.countRows(pid, 1)).toBe(n);
  });
});

describe("the delete by id", () => {
  test("a new document's writes skip it (it scans the table); a replayed slice takes it", async () => {
    const vectorStore = t.services.vectorStore;
    const original = vectorStore.replaceDocuments;
    const skipped: boolean[] = [];
    const deleted: string[] = [];
    vectorStore.replaceDocuments = (cid, gen, ids, rows, opts) => {
      deleted.push(...ids);
      if (rows.some((r) => !ids.includes(r.documentId))) skipped.push(opts?.appendedAreNew === true);
      return original.call(vectorStore, cid, gen, ids, rows, opts);
    };
    try {
      // Three slices or more: the third leaves only once the first is committed, so it is appended alone.
      const pid = await c.pipeline({ name: "fast path", chunkSize: 50, chunkOverlap: 0, embeddingModel: "builtin" });
      const s = await c.addText(pid, longText("fastpath", 2000), "fast path");
      const done = await c.settled(pid, s.id);
      expect(done.chunkCount).toBeGreaterThan(1024);
      expect(skipped.length).toBeGreaterThan(0);
      expect(skipped.every(Boolean)).toBe(true);
      // New in this process and on its first attempt: its first write had nothing to delete either.
      expect(deleted).not.toContain(s.id);
      skipped.length = 0;
      await t.services.engine.sink.append(table(pid, s.id), fakeRows(s.id, 520, 540));
      expect(skipped).toEqual([false]);
      const rows = await chunkRows(t.dataDir, pid, 1);
      expect(duplicates(rows.map((r) => r.id))).toEqual(NO_DUPLICATES);
      expect(rows).toHaveLength(done.chunkCount);
    } finally {
      vectorStore.replaceDocuments = original;
    }
  });
});

// Kept last: these fail until the bugs they name are fixed (see the report); each uses its own pipeline.
describe("regressions (found by these tests, now fixed)", () => {
  test("writes of one document that land in the same group commit keep each chunk id once", async () => {
    const { pid, sid, n } = await multiSliceSource("coalesced");
    const sink = t.services.engine.sink;
    // The first write starts a commit at once; the next two wait and are merged into one batch.
    const writes = [
      sink.replace(table(pid, sid), fakeRows(sid, 0, 512, "a")),
      sink.replace(table(pid, sid), fakeRows(sid, 0, 512, "b")),
      sink.replace(table(pid, sid), fakeRows(sid, 0, 512, "c")),
      sink.append(table(pid, sid), fakeRows(sid, 512, n, "c")),
      sink.append(table(pid, sid), fakeRows(sid, 512, n, "d")),
    ];
    await Promise.all(writes);
    const rows = await chunkRows(t.dataDir, pid, 1);
    expect(duplicates(rows.map((r) => r.id))).toEqual(NO_DUPLICATES);
    expect(rows).toHaveLength(n);
  });

  test("two runs of one document at the same time keep each chunk id once", async () => {
    const { pid, sid, n } = await multiSliceSource("concurrent");
    // Two workers run the two tasks side by side; their slices often share a group commit.
    for (let round = 0; round < 3; round++) {
      await Promise.all([t.services.engine.enqueue(sid), t.services.engine.enqueue(sid)]);
      await waitFor("both runs to finish", () => pendingTasks(sid) === 0);
      expect((await c.settled(pid, sid)).chunkCount).toBe(n);
      const rows = await chunkRows(t.dataDir, pid, 1);
      expect(duplicates(rows.map((r) => r.id))).toEqual(NO_DUPLICATES);
      expect(rows).toHaveLength(n);
    }
  });

  test("deleting the last unfinished source of a re-index still completes the switch to the new index", async () => {
    const pid = await c.pipeline({
      name: "Rebuild then delete",
      embeddingModel: "ollama/all-minilm",
      chunkSize: 1000,
      chunkOverlap: 0,
    });
    const key = await c.key(pid);
    const a = await c.addText(
      pid,
      Array.from({ length: 30 }, (_, i) => `The walrus fact number ${i} is worth knowing.`).join(" "),
      "short",
    );
    const b = await c.addText(pid, longText("slowpoke", 300), "long");
    for (const s of await c.allSettled(pid)) expect(s.status).toBe("ready");
    expect((await c.call("PATCH", `/api/rag/pipelines/${pid}`, { chunkSize: 200, chunkOverlap: 0 })).status).toBe(200);

    await fake.set({ latencyMs: 500 });
    try {
      expect((await c.call("POST", `/api/rag/pipelines/${pid}/reindex`)).status).toBe(202);
      await waitFor("the short source to be rebuilt", async () => (await c.source(pid, a.id))?.status === "ready");
      expect((await c.source(pid, b.id))?.status).not.toBe("ready");
      expect((await c.call("DELETE", `/api/rag/pipelines/${pid}/sources/${b.id}`)).status).toBe(200);
    } finally {
      await fake.set({ latencyMs: 0 });
    }

    expect(await c.getPipeline(pid)).toMatchObject({ status: "ready", sourceCount: 1 });
    await waitFor("the switch to generation 2", async () => (await collection(pid)).buildingGeneration === null, 5_000);
    expect((await collection(pid)).activeGeneration).toBe(2);
    const r = await c.query(key, { query: "walrus fact", topK: 10 });
    expect(r.body.results.length).toBeGreaterThan(0);
    for (const x of r.body.results) expect(x.content.length).toBeLessThanOrEqual(200);
    await waitFor(
      "generation 1 to be dropped",
      async () => (await tablesOf(t.dataDir, pid)).join() === tableNameOf(pid, 2),
    );
  });
});
