/**
 * A full ingestion queue's Retry-After is the time it needs for the refused work at the
 * pace it drained lately (tasks/queue-room.ts), 1 to 60 s, and 60 while it has not been
 * seen draining. A real database's task table, counted as the server counts it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { QueueFullError } from "../src/ingest/errors";
import { DrainRate, QUEUE_LIMIT, QueueRoom } from "../src/ingest/tasks/queue-room";
import { email, makeApp, type TestApp } from "./support/app";

describe("DrainRate", () => {
  test("says the longest wait until it has seen tasks end", () => {
    expect(new DrainRate().secondsFor(100, 60)).toBe(60);
  });

  test("gives the seconds the tasks take at the pace seen, at least one", () => {
    const rate = new DrainRate();
    // 1,000 waiting and 200 queued meanwhile; 700 left a second later: 500 ended.
    rate.counted({ n: 1_000, at: 0, added: 200 }, 700, 1_000);
    expect(rate.secondsFor(1_000, 60)).toBe(2);
    expect(rate.secondsFor(1, 60)).toBe(1);
    expect(rate.secondsFor(100_000, 60)).toBe(60);
  });

  test("passes over spans with nothing waiting, and weighs a short span little", () => {
    const rate = new DrainRate();
    rate.counted({ n: 0, at: 0, added: 0 }, 0, 5_000);
    expect(rate.secondsFor(10, 60)).toBe(60);
    rate.counted({ n: 1_000, at: 5_000, added: 0 }, 0, 6_000); // 1 task a ms
    rate.counted({ n: 1_000, at: 6_000, added: 0 }, 1_000, 6_500); // none ended in half a second
    // 1 − 0.05 of the first pace: 10,000 tasks in 11 s, not never.
    expect(rate.secondsFor(10_000, 60)).toBe(11);
  });
});

describe("a full queue", () => {
  let t: TestApp;
  let pipelineId: string;
  let documentId: string;
  let clock = 0;

  beforeAll(async () => {
    t = await makeApp();
    const cookie = await t.signup(email("queue-drain"));
    pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "drain" } })).body.id;
    documentId = (
      await t.call("POST", `/api/rag/pipelines/${pipelineId}/sources`, {
        cookie,
        body: { type: "file", fileName: "wait.txt", fileSize: 10 },
      })
    ).body.id;
  });
  afterAll(() => t.close());

  /** `n` queued tasks that never come due. */
  const queue = (n: number) =>
    t.services.db.atomically((tx) => {
      const now = new Date().toISOString();
      const insert = tx.$client.prepare(
        "INSERT INTO tasks (id, document_id, collection_id, generation, status, attempts, run_after, created_at, updated_at) VALUES (?, ?, ?, 1, 'queued', 0, '9999-01-01T00:00:00.000Z', ?, ?)",
      );
      for (let i = 0; i < n; i++) insert.run(Bun.randomUUIDv7(), documentId, pipelineId, now, now);
    });
  const end = (n: number) =>
    t.services.db.atomically((tx) =>
      tx.$client.run(
        "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE document_id = ? AND status = 'queued' LIMIT ?)",
        [documentId, n],
      ),
    );
  const refusal = async (room: QueueRoom, n: number) => {
    const err = await room.require(n).then(
      () => null,
      (e: unknown) => e,
    );
    return err instanceof QueueFullError ? { s: err.retryAfterS, message: err.message } : null;
  };

  test("is refused for a minute until it drains, then for the seconds the refused work needs", async () => {
    const room = new QueueRoom(t.services.db, undefined, undefined, () => clock);
    await queue(QUEUE_LIMIT);
    expect(await refusal(room, 1)).toEqual({ s: 60, message: "the ingestion queue is full; try again in a minute" });
    // 2,000 end in the next two seconds; 2,500 more tasks would need 500 of the next to end: 1 s.
    await end(2_000);
    clock += 2_000;
    expect(await refusal(room, 2_500)).toEqual({ s: 1, message: "the ingestion queue is full; try again in 1 s" });
    // 2,000 taken now; none end in the next second: the pace falls by a tenth, and 1,000 more need 2 s.
    await room.require(2_000);
    room.added(2_000);
    await queue(2_000);
    clock += 1_000;
    expect(await refusal(room, 1_000)).toEqual({ s: 2, message: "the ingestion queue is full; try again in 2 s" });
  });
});
