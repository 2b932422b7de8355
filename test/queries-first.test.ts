/**
 * Queries first (issue 36, item 7): while table searches wait for a turn, commits take a
 * bounded share of the time (vectors/write-pacing.ts) and new work beyond a backlog is
 * refused with 429 and Retry-After: 1 (ingest/tasks/queue-room.ts); without waiting searches,
 * writes go on as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BACKLOG_WHILE_QUERIED, QueueRoom } from "../src/ingest/tasks/queue-room";
import { WRITE_SHARE, WritePacing, WriteShare } from "../src/vectors/write-pacing";
import { Semaphore } from "../src/tools/semaphore";
import { email, makeApp, type TestApp } from "./support/app";
import { waitFor } from "./support/wait";
import { ApiError, askedAgainWhileBusy, BusyError, busyWaitMs } from "../src/dashboard/api/client";

describe("the share of time commits take while searches wait", () => {
  test("a commit of d ms makes the next wait d × (1/share − 1), and only while searches wait", () => {
    let now = 1_000;
    const share = new WriteShare(0.25, () => now);
    share.spent(100);
    expect(share.waitMs(true)).toBe(300);
    expect(share.waitMs(false)).toBe(0);
    now += 200;
    expect(share.waitMs(true)).toBe(100);
    // Commits at once (two tables) add up.
    share.spent(100);
    expect(share.waitMs(true)).toBe(400);
    now += 1_000;
    expect(share.waitMs(true)).toBe(0);
  });

  test("a share of 1 never waits; a share outside (0, 1] is refused", () => {
    const share = new WriteShare(1, () => 0);
    share.spent(10_000);
    expect(share.waitMs(true)).toBe(0);
    expect(() => new WriteShare(0)).toThrow(RangeError);
    expect(() => new WriteShare(1.5)).toThrow(RangeError);
  });
});

describe("admission while queries wait", () => {
  let t: TestApp;
  let cookie: string;
  let pipelineId: string;
  let key: string;

  beforeAll(async () => {
    t = await makeApp();
    cookie = await t.signup(email("queries-first"));
    pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "queries first" } })).body.id;
    key = (
      await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, {
        cookie,
        body: { name: "w", scopes: ["ingest", "query"] },
      })
    ).body.key;
    const text = "Queries come first while the server ingests. ".repeat(20);
    const doc = await t.call("PUT", "/api/rag/documents/first", {
      headers: { authorization: `Bearer ${key}` },
      body: { type: "text", content: text },
    });
    expect(doc.status).toBeLessThan(300);
    await waitFor(
      "the first document ready",
      async () =>
        (await t.call("GET", "/api/rag/documents/first", { headers: { authorization: `Bearer ${key}` } })).body
          .status === "ready",
    );
    // A backlog of tasks that never come due (queued far in the future), above the bound but far below the queue's limit.
    const now = new Date().toISOString();
    await t.services.db.atomically((tx) => {
      const insert = tx.$client.prepare(
        "INSERT INTO tasks (id, document_id, collection_id, generation, status, attempts, run_after, created_at, updated_at) VALUES (?, ?, ?, 1, 'queued', 0, '9999-01-01T00:00:00.000Z', ?, ?)",
      );
      for (let i = 0; i < BACKLOG_WHILE_QUERIED + 10; i++)
        insert.run(Bun.randomUUIDv7(), doc.body.source.id, pipelineId, now, now);
    });
    // The queue is recounted at most every 250 ms.
    await Bun.sleep(300);
  });
  afterAll(() => t.close());

  const put = (id: string) =>
    t.call("PUT", `/api/rag/documents/${id}`, {
      headers: { authorization: `Bearer ${key}` },
      body: { type: "text", content: `A new document, ${id}.` },
    });

  test("a write is refused with 429 and Retry-After: 1 while searches wait, and taken once they stop", async () => {
    const queries = Array.from({ length: 16 }, (_, i) =>
      t.call("POST", "/api/rag/query", {
        headers: { authorization: `Bearer ${key}` },
        body: { query: `queries first ${i}`, mode: "keyword", topK: 5 },
      }),
    );
    await waitFor("searches waiting for a turn", () => t.services.vectorStore.queriesWaiting, 10_000, 1);
    const refused = await put("while-queried");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body.error.code).toBe("rate_limited");
    for (const q of await Promise.all(queries)) expect(q.status).toBe(200);
    // Nothing half-stored: the refused document does not exist.
    expect(
      (await t.call("GET", "/api/rag/documents/while-queried", { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(404);
    await waitFor("no search waiting", () => !t.services.vectorStore.queriesWaiting, 10_000);
    const taken = await put("after-queries");
    expect(taken.status).toBeLessThan(300);
  });
});

describe("the dashboard asks again while the server is busy", () => {
  test("a 429 with a short Retry-After is waited out; a long one, or another status, is not", () => {
    expect(busyWaitMs(429, "1")).toBe(1000);
    expect(busyWaitMs(429, "60")).toBeNull();
    expect(busyWaitMs(429, null)).toBeNull();
    expect(busyWaitMs(503, "1")).toBeNull();
  });

  test("a busy answer is asked again until it is taken", async () => {
    let calls = 0;
    const answer = await askedAgainWhileBusy(async () => {
      calls++;
      if (calls < 3) throw new BusyError(1, new ApiError(429, "rate_limited", "busy"));
      return "taken";
    });
    expect([answer, calls]).toEqual(["taken", 3]);
  });
});

describe("a burst of writers while queries wait", () => {
  test("writers asking at the same moment are admitted up to the bound, not each on the same count", async () => {
    const room = new QueueRoom(
      { reader: null } as never,
      () => 0,
      () => true,
    );
    // The first call counts the queue; a store whose count is 0.
    (room as unknown as { queued: { n: number; at: number } }).queued = { n: 0, at: performance.now() };
    const asked = await Promise.allSettled(Array.from({ length: 40 }, () => room.require(50)));
    const taken = asked.filter((a) => a.status === "fulfilled").length;
    // Ten batches of 50 reach 500, below the bound of 512: the eleventh passes too, the rest are refused.
    expect(taken).toBe(Math.ceil(BACKLOG_WHILE_QUERIED / 50));
    const refused = asked.find((a) => a.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.retryAfterS).toBe(1);
  });
});

describe("a searched table's tail after a commit while searches wait", () => {
  const pacingWith = (waiting: boolean) => {
    const turns = new Semaphore(1);
    if (waiting) turns.lastQueuedAt = performance.now();
    const asked: [string, number][] = [];
    const pacing = new WritePacing(turns, {
      roomFor: async (name: string, bound: number) => {
        asked.push([name, bound]);
        return { room: bound, caughtUp: true };
      },
    });
    return { pacing, asked };
  };

  test("is refreshed at once, so searches do not tokenise it until the next commit", () => {
    const { pacing, asked } = pacingWith(true);
    pacing.searched("t");
    pacing.committed("t", 5);
    pacing.committed("other", 5);
    expect(asked).toEqual([["t", 1]]);
  });

  test("is left to the next commit when no search waits", () => {
    const { pacing, asked } = pacingWith(false);
    pacing.searched("t");
    pacing.committed("t", 5);
    expect(asked).toEqual([]);
  });

  /** A table whose looks at its tail catch it up (each taking 2 s of `clock`) while `catches(n)` says so for the n-th. */
  const catchingUp = (catches: (n: number) => boolean) => {
    const state = { clock: 0, asked: [] as number[] };
    const upkeep = {
      roomFor: async (_name: string, bound: number) => {
        state.asked.push(bound);
        const caughtUp = catches(state.asked.length);
        if (caughtUp) state.clock += 2_000;
        return { room: bound, caughtUp };
      },
    };
    return { state, upkeep, now: () => state.clock };
  };

  test("after a catch-up that took d ms, waits for none for d ms, whatever the tail", async () => {
    const { state, upkeep, now } = catchingUp((n) => n === 1);
    const turns = new Semaphore(1);
    turns.lastQueuedAt = performance.now(); // searches wait: a commit would catch the table up at once
    const pacing = new WritePacing(turns, upkeep, 1_000, WRITE_SHARE, 1, now);
    pacing.searched("t");
    expect(await pacing.writeRoom("t")).toBe(1_000);
    state.clock += 1_999;
    // Resting: unbounded, and no look at the tail.
    expect(await pacing.writeRoom("t")).toBe(Number.POSITIVE_INFINITY);
    pacing.committed("t", 5); // resting: no catch-up at once either
    state.clock += 2;
    expect(await pacing.writeRoom("t")).toBe(1_000);
    expect(state.asked).toEqual([1_000, 1_000]);
  });

  test("a caller that joined the catch-up late does not shorten the rest", async () => {
    const clock = { now: 0 };
    let finish = (_: { room: number; caughtUp: boolean }) => {};
    const shared = new Promise<{ room: number; caughtUp: boolean }>((resolve) => (finish = resolve));
    const asked: number[] = [];
    const upkeep = {
      roomFor: (_name: string, bound: number) => {
        asked.push(bound);
        return shared;
      },
    };
    const turns = new Semaphore(1);
    turns.lastQueuedAt = performance.now(); // searches wait: the commit starts the catch-up at once
    const pacing = new WritePacing(turns, upkeep, 1_000, WRITE_SHARE, 1, () => clock.now);
    pacing.searched("t");
    pacing.committed("t", 5); // the catch-up starts at 0
    clock.now = 1_500;
    const joined = pacing.writeRoom("t"); // joins it at 1,500
    await Bun.sleep(50); // past the commit's turn: the join has asked
    clock.now = 2_000;
    finish({ room: 1_000, caughtUp: true });
    await joined;
    turns.lastQueuedAt = 0; // no search waits now: the next commit takes no turn
    // The catch-up took 2,000 ms: the table rests until 4,000, not 2,500 (the joiner's 500 ms).
    clock.now = 3_000;
    expect(await pacing.writeRoom("t")).toBe(Number.POSITIVE_INFINITY);
    expect(pacing.resting("t")).toBe(true);
    expect(asked).toEqual([1, 1_000]);
  });

  test("with no rest, every commit looks at the tail", async () => {
    const { state, upkeep, now } = catchingUp(() => true);
    const pacing = new WritePacing(new Semaphore(1), upkeep, 1_000, WRITE_SHARE, 0, now);
    pacing.searched("t");
    await pacing.writeRoom("t");
    await pacing.writeRoom("t");
    expect(state.asked).toEqual([1_000, 1_000]);
  });
});
