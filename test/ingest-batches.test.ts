/**
 * The batch path's statements over many rows (docs/API.md, Documents API): a batch
 * request's new documents go in together with their tasks and events, the scheduler
 * claims many tasks in one statement, and the endings of a turn are recorded
 * together. Failures are injected with SQLite triggers on the real database.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "../src/db/client";
import { findCollectionById } from "../src/db/repo/collections";
import { claimTasks } from "../src/db/repo/task-batches";
import { SqliteStore } from "../src/db/store";
import type { RowOut } from "../src/ingest/job-types";
import { type DocumentDraft, insertNewDocument, newDocumentRow } from "../src/ingest/tasks/queue";
import { ChunkSink } from "../src/ingest/write/sink";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import type { UpsertPlan } from "../src/ingest/write/upsert";
import { DocumentsFixture } from "./support/documents";
import { waitFor } from "./support/ingest";

const f = new DocumentsFixture();
beforeAll(() => f.open());
afterAll(() => f.close());

const db = () => f.t.services.db;
const sql = <T>(q: string, ...args: (string | number)[]) =>
  db()
    .reader.$client.query(q)
    .all(...args) as T[];
/** Runs SQL on the connection every write goes through (where a temporary trigger must live). */
const onWriter = (q: string) => db().atomically((tx) => tx.$client.exec(q));
const batch = (documents: unknown[]) =>
  f.t.call("POST", "/api/rag/documents/batch", { headers: f.auth(), body: { documents } });

/** The plan a batch item of text makes (as features/documents/input.ts builds it). */
const plan = (externalId: string, content: string): UpsertPlan => ({
  collectionId: f.pid,
  externalId,
  type: "text",
  derivedName: externalId,
  content,
  filePathOf: (id) => join(f.t.dataDir, "files", f.pid, id),
  contentHash: Bun.SHA256.hash(content, "hex") as string,
});

/** Rows, tasks and events of the documents with these external ids. */
function stored(externalIds: string[]) {
  const ids = JSON.stringify(externalIds);
  const docs = sql<{ id: string; external_id: string }>(
    "SELECT id, external_id FROM documents WHERE external_id IN (SELECT value FROM json_each(?))",
    ids,
  );
  const tasks = sql<{ n: number }>(
    "SELECT count(*) AS n FROM tasks t JOIN documents d ON d.id = t.document_id WHERE d.external_id IN (SELECT value FROM json_each(?))",
    ids,
  )[0]!.n;
  const queued = sql<{ external_id: string }>(
    "SELECT external_id FROM events WHERE type = 'source.queued' AND external_id IN (SELECT value FROM json_each(?)) ORDER BY id",
    ids,
  ).map((e) => e.external_id);
  return { docs, tasks, queued };
}

describe("a batch request's new documents", () => {
  test("N items make N rows, N tasks and N source.queued events, in item order", async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `bulk-${i}`);
    const r = await batch(ids.map((externalId) => ({ externalId, type: "text", content: `text of ${externalId}` })));
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { externalId: string }) => x.externalId)).toEqual(ids);
    expect(r.body.results.every((x: { status: string }) => x.status === "created")).toBe(true);
    const s = stored(ids);
    expect(s.docs.length).toBe(40);
    expect(s.tasks).toBe(40);
    expect(s.queued).toEqual(ids);
    // Each result names its own stored row.
    const byExt = new Map(s.docs.map((d) => [d.external_id, d.id]));
    for (const x of r.body.results) expect(x.source.id).toBe(byExt.get(x.externalId));
    for (const id of ids) expect((await f.settled(id)).status).toBe("ready");
  });

  test("an item whose write fails undoes only itself: the others keep their row, task and event", async () => {
    // Injected: SQLite refuses the event of one item, in the middle of the batch.
    await onWriter(`CREATE TEMP TRIGGER fail_one BEFORE INSERT ON events
      WHEN NEW.external_id = 'inj-2' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      const ids = ["inj-0", "inj-1", "inj-2", "inj-3", "inj-4"];
      const results = await f.t.services.engine.upsertDocuments(ids.map((id) => plan(id, `text ${id}`)));
      expect(results.map((r) => r.ok)).toEqual([true, true, false, true, true]);
      const s = stored(ids);
      expect(s.docs.map((d) => d.external_id).sort()).toEqual(["inj-0", "inj-1", "inj-3", "inj-4"]);
      expect(s.tasks).toBe(4);
      expect(s.queued).toEqual(["inj-0", "inj-1", "inj-3", "inj-4"]);
    } finally {
      await onWriter("DROP TRIGGER IF EXISTS fail_one");
    }
  });

  test("when every write fails, nothing of the batch is left: no row, no task, no event", async () => {
    await onWriter(
      `CREATE TEMP TRIGGER fail_all BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    try {
      const ids = ["none-0", "none-1", "none-2"];
      const results = await f.t.services.engine.upsertDocuments(ids.map((id) => plan(id, `text ${id}`)));
      expect(results.every((r) => !r.ok)).toBe(true);
      const s = stored(ids);
      expect(s).toEqual({ docs: [], tasks: 0, queued: [] });
    } finally {
      await onWriter("DROP TRIGGER IF EXISTS fail_all");
    }
  });
});

describe("claiming many tasks", () => {
  /**
   * Queues `n` documents of a new pipeline, to run later (rows and tasks only): the
   * server's own scheduler leaves them alone while the test claims them.
   */
  async function queueMany(n: number): Promise<string> {
    const pid = await f.c.pipeline({ name: `claims-${n}` });
    const col = (await findCollectionById(db().reader, pid))!;
    const later = new Date(Date.now() + 3_600_000).toISOString();
    // In one transaction: the scheduler never sees the tasks due.
    await db().atomically(async (tx) => {
      for (let i = 0; i < n; i++) {
        const draft: DocumentDraft = { collectionId: pid, type: "text", name: `d${i}` };
        await insertNewDocument(tx, newDocumentRow(draft), col, Date.now(), "x");
      }
      tx.$client.run("UPDATE tasks SET run_after = ? WHERE collection_id = ?", [later, pid]);
    });
    return pid;
  }

  test("two connections claiming at once never take the same task, and together take them all", async () => {
    const pid = await queueMany(300);
    const path = join(f.t.dataDir, "ragd.db");
    const a = new Database(path);
    const b = new Database(path);
    try {
      for (const c of [a, b]) c.exec("PRAGMA busy_timeout = 5000");
      const { drizzle } = await import("drizzle-orm/bun-sqlite");
      const [da, dbb] = [drizzle({ client: a }), drizzle({ client: b })] as unknown as Db[];
      const [sa, sb] = [new SqliteStore(da!, da!), new SqliteStore(dbb!, dbb!)];
      const seen: string[] = [];
      // Interleaved claims from two connections, each in its own write transaction.
      for (let round = 0; round < 10; round++)
        for (const s of [sa, sb]) {
          const got = await s.atomically((tx) => claimTasks(tx, 17, Date.now() + 7_200_000, 60_000));
          seen.push(...got.map((x) => x.id));
        }
      const ours = new Set(sql<{ id: string }>("SELECT id FROM tasks WHERE collection_id = ?", pid).map((r) => r.id));
      const mine = seen.filter((id) => ours.has(id));
      expect(new Set(mine).size).toBe(mine.length);
      expect(mine.length).toBe(300);
      const states = sql<{ status: string; attempts: number; n: number }>(
        "SELECT status, attempts, count(*) AS n FROM tasks WHERE collection_id = ? GROUP BY status, attempts",
        pid,
      );
      expect(states).toEqual([{ status: "processing", attempts: 1, n: 300 }]);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe("endings recorded together", () => {
  test("a refused ending is recorded alone later; each document gets exactly one source.ready", async () => {
    const g = new DocumentsFixture();
    await g.open({ workers: 2 });
    const c = g.t.services.db.reader.$client;
    const onWriter = (q: string) => g.t.services.db.atomically((tx) => tx.$client.exec(q));
    try {
      // Injected: the ready event of one document is refused until the trigger goes.
      await onWriter(`CREATE TEMP TRIGGER fail_ready BEFORE INSERT ON events
        WHEN NEW.type = 'source.ready' AND NEW.external_id = 'end-3' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      const ids = Array.from({ length: 8 }, (_, i) => `end-${i}`);
      const r = await g.t.call("POST", "/api/rag/documents/batch", {
        headers: g.auth(),
        body: { documents: ids.map((externalId) => ({ externalId, type: "text", content: `ending ${externalId}` })) },
      });
      expect(r.status).toBe(200);
      const status = (id: string) =>
        (c.query("SELECT status FROM documents WHERE external_id = ?").get(id) as { status: string }).status;
      await waitFor("the other documents to be ready", async () =>
        ids.filter((id) => id !== "end-3").every((id) => status(id) === "ready"),
      );
      // Its status change was refused with its event: still processing, no ready event invented.
      expect(status("end-3")).toBe("processing");
      await onWriter("DROP TRIGGER fail_ready");
      await waitFor("the refused ending to be recorded", async () => status("end-3") === "ready");
      const readies = c
        .query("SELECT external_id AS id, count(*) AS n FROM events WHERE type = 'source.ready' GROUP BY external_id")
        .all() as { id: string; n: number }[];
      expect(readies.sort((x, y) => x.id.localeCompare(y.id))).toEqual(ids.map((id) => ({ id, n: 1 })));
      const tasks = c.query("SELECT status, count(*) AS n FROM tasks GROUP BY status").all();
      expect(tasks).toEqual([{ status: "succeeded", n: 8 }]);
    } finally {
      await g.close();
    }
  });
});

describe("LanceDB commits during a burst", () => {
  /** `n` one-chunk documents' rows, 8-dimension vectors. */
  const rowsOf = (tag: string, n: number): { id: string; rows: RowOut[] }[] =>
    Array.from({ length: n }, (_, i) => {
      const documentId = `${tag}-${i}`;
      const vector = new Float32Array(8).fill(0.5);
      return {
        id: documentId,
        rows: [{ id: `${documentId}:0`, documentId, chunkIndex: 0, text: "t", start: 0, end: 1, vector }],
      };
    });

  test("a commit right after another waits for the rows arriving, rather than carry three", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ragd-sink-"));
    const conn = await openLance(dir);
    const vectorStore = new VectorStore(conn);
    let many: Promise<void>[] = [];
    try {
      const sink = new ChunkSink(vectorStore, async (_c, _g, ids, write) => write(new Set(ids)));
      const collectionId = Bun.randomUUIDv7();
      const at = (documentId: string) => ({ collectionId, generation: 1, documentId });
      const first = sink.replace(at("first"), rowsOf("first", 1)[0]!.rows);
      // Three small documents arrive while the first commit runs...
      const few = rowsOf("few", 3).map((d) => sink.replace(at(d.id), d.rows));
      // ...and 600 more just after it ends (as the workers' next documents do).
      await first.then(() => {
        many = rowsOf("many", 600).map((d) => sink.replace(at(d.id), d.rows));
      });
      await Promise.all(few);
      // The three went in the same commit as the 600, not in one of their own.
      expect(await vectorStore.countRows(collectionId, 1)).toBe(604);
    } finally {
      await Promise.allSettled(many);
      vectorStore.close();
      conn.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /**
   * As above, with `coming` telling the sink whether rows may still arrive; `whileWaiting`
   * runs a turn after the first commit ends (while a commit would wait for rows), and 600
   * more documents come a turn after that. Resolves with the rows stored once the three
   * small documents are committed.
   */
  async function afterFirst(coming: () => boolean, whileWaiting: (sink: ChunkSink) => void): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), "ragd-sink-"));
    const conn = await openLance(dir);
    const vectorStore = new VectorStore(conn);
    let many: Promise<void>[] = [];
    try {
      const sink = new ChunkSink(vectorStore, async (_c, _g, ids, write) => write(new Set(ids)), coming);
      const collectionId = Bun.randomUUIDv7();
      const at = (documentId: string) => ({ collectionId, generation: 1, documentId });
      const first = sink.replace(at("first"), rowsOf("first", 1)[0]!.rows);
      const few = rowsOf("few", 3).map((d) => sink.replace(at(d.id), d.rows));
      await first;
      await new Promise((resolve) => setImmediate(resolve));
      whileWaiting(sink);
      setImmediate(() => {
        many = rowsOf("many", 600).map((d) => sink.replace(at(d.id), d.rows));
      });
      await Promise.all(few);
      return await vectorStore.countRows(collectionId, 1);
    } finally {
      await Promise.allSettled(many);
      vectorStore.close();
      conn.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("with no job left to send rows, a commit after another goes at once", async () => {
    // The three went alone: nothing was coming, so no wait kept them for the 600.
    expect(
      await afterFirst(
        () => false,
        () => {},
      ),
    ).toBe(4);
    // While rows may come, they wait for the 600, as above.
    expect(
      await afterFirst(
        () => true,
        () => {},
      ),
    ).toBe(604);
  });

  test("the last job's ending lets a commit waiting for rows go", async () => {
    let coming = true;
    const rows = await afterFirst(
      () => coming,
      (sink) => {
        coming = false;
        sink.settle();
      },
    );
    expect(rows).toBe(4);
  });
});

describe("webhooks of a batch", () => {
  test("every event of a batch gets its outbox row, with its own payload, for each webhook that takes it", async () => {
    const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 204 }) });
    const g = new DocumentsFixture();
    await g.open({ fetchAllow: ["127.0.0.1"] });
    try {
      const url = `http://127.0.0.1:${receiver.port}/hook`;
      for (const events of [["source.queued", "source.ready"], ["source.ready"]]) {
        const r = await g.c.call("POST", `/api/rag/pipelines/${g.pid}/webhooks`, { url, events });
        expect(r.status).toBe(201);
      }
      const ids = Array.from({ length: 12 }, (_, i) => `hook-${i}`);
      const r = await g.t.call("POST", "/api/rag/documents/batch", {
        headers: g.auth(),
        body: { documents: ids.map((externalId) => ({ externalId, type: "text", content: `hooked ${externalId}` })) },
      });
      expect(r.status).toBe(200);
      for (const id of ids) expect((await g.settled(id)).status).toBe("ready");
      const rows = g.t.services.db.reader.$client
        .query("SELECT event_type AS type, payload FROM webhook_deliveries ORDER BY event_id")
        .all() as { type: string; payload: string }[];
      const of = (type: string) => rows.filter((x) => x.type === type).map((x) => JSON.parse(x.payload).externalId);
      // Queued: one webhook takes it, in item order; ready: both do.
      expect(of("source.queued")).toEqual(ids);
      expect(of("source.ready").sort()).toEqual([...ids, ...ids].sort());
      expect(of("source.processing")).toEqual([]);
    } finally {
      await g.close();
      receiver.stop(true);
    }
  });
});
