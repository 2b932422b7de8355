/**
 * The worker pool's bookkeeping with real Bun Worker threads: room is taken when a
 * job is assigned, given back when it ends or is released, and a job released
 * before it is sent never reaches its worker.
 */
import { afterAll, expect, test } from "bun:test";
import type { Job, JobEvent } from "../src/ingest/job-types";
import { WorkerPool, jobWeight } from "../src/ingest/run/pool";
import { decodeTurn, type Wire } from "../src/ingest/run/worker-wire";
import { createLogger } from "../src/log";

const pool = new WorkerPool(
  1,
  createLogger("error", () => {}),
  4,
);
afterAll(() => pool.close());

const job = (id: string, content: string): Job => ({
  jobId: id,
  document: { id: `doc-${id}`, type: "text", content, url: null, fileName: null, fileSize: null, fileLocation: null },
  chunking: { strategy: "recursive", size: 200, overlap: 0 },
  model: "builtin",
  language: "legacy",
  embed: { ollamaUrl: "http://127.0.0.1:1", openaiUrl: null, openaiKey: null, batchSize: 32 },
  fetch: { allow: [], deny: [], maxBytes: 1024, timeoutMs: 1000 },
  ocr: { languages: ["eng"], pageTimeoutMs: 1000, dataDir: "." },
});

test("weights: eighths of 128 KB, at least 1/8; an unknown size takes a whole unit", () => {
  expect(jobWeight(0)).toBe(1 / 8);
  expect(jobWeight(1400)).toBe(1 / 8);
  expect(jobWeight(16 * 1024 + 1)).toBe(2 / 8);
  expect(jobWeight(1024 * 1024)).toBe(8);
  expect(jobWeight(null)).toBe(1);
});

test("assign takes room, release gives it back, and a released job is never run", async () => {
  const events: JobEvent[] = [];
  const before = pool.idle;
  const send = pool.assign(job("released", "never embedded"), { onEvent: (e) => events.push(e) }, null);
  expect(send).not.toBeNull();
  expect(pool.idle).toBe(before - 1);
  pool.release("released");
  expect(pool.idle).toBe(before);
  // What reaches the worker thread, seen where it is posted (the pool drops events of jobs it no longer holds).
  const posted: string[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<typeof post>) {
    // The messages of a turn go as one (pool.ts, worker-wire.ts).
    for (const msg of decodeTurn(args[0] as Wire)) if (msg.type === "job") posted.push(msg.job.jobId);
    return post.apply(this, args);
  } as typeof post;
  try {
    send!();
    // A later job on the same worker, run to its end: the released one would have been posted first.
    await new Promise<void>((resolve) => {
      const next = pool.assign(
        job("after-released", "A short text."),
        {
          onEvent: (e) => {
            if (e.type === "rows") pool.ack(e.jobId);
            if (e.type === "done" || e.type === "error") resolve();
          },
        },
        0,
      );
      next!();
    });
  } finally {
    Worker.prototype.postMessage = post;
  }
  expect(posted).toEqual(["after-released"]);
  expect(events).toEqual([]);
});

test("an assigned job runs once sent, and its room comes back when it is done", async () => {
  const before = pool.idle;
  const done = new Promise<JobEvent[]>((resolve) => {
    const seen: JobEvent[] = [];
    const send = pool.assign(
      job("sent", "A short text to chunk and embed."),
      {
        onEvent: (e) => {
          seen.push(e);
          if (e.type === "done" || e.type === "error") resolve(seen);
          if (e.type === "rows") pool.ack(e.jobId);
        },
      },
      32,
    );
    expect(pool.idle).toBe(before - 1 / 8);
    send!();
  });
  const seen = await done;
  expect(seen.map((e) => e.type)).toEqual(["rows", "done"]);
  expect(pool.idle).toBe(before);
});

test("a full pool refuses another job", () => {
  const taken = Array.from({ length: 4 }, (_, i) => pool.assign(job(`full${i}`, "x"), { onEvent: () => {} }, null));
  expect(taken.every((s) => s !== null)).toBe(true);
  expect(pool.idle).toBe(0);
  expect(pool.assign(job("one-more", "x"), { onEvent: () => {} }, 0)).toBeNull();
  for (let i = 0; i < 4; i++) pool.release(`full${i}`);
  expect(pool.idle).toBe(4);
});

test("jobs of one remote model share a worker while it has room (and its embedding batches); builtin jobs spread", async () => {
  const two = new WorkerPool(
    2,
    createLogger("error", () => {}),
    1,
  );
  try {
    const remote = (id: string): Job => ({ ...job(id, "text"), model: "ollama/all-minilm" });
    const ignore = { onEvent: () => {} };
    two.assign(remote("r1"), ignore, 0);
    two.assign(remote("r2"), ignore, 0);
    expect(two.loads).toEqual([2 / 8, 0]);
    two.assign(job("b1", "text"), ignore, 0);
    two.assign(job("b2", "text"), ignore, 0);
    expect(two.loads).toEqual([2 / 8, 2 / 8]);
    // A full worker takes no more: the next job of the model goes to the other one.
    two.assign(remote("r3"), ignore, 6 * 16 * 1024);
    expect(two.loads).toEqual([1, 2 / 8]);
    two.assign(remote("r4"), ignore, 0);
    expect(two.loads).toEqual([1, 3 / 8]);
    // Another model, or other backend settings, is another embedder: no pull to either worker.
    two.assign({ ...remote("o1"), model: "ollama/nomic-embed-text" }, ignore, 0);
    expect(two.loads).toEqual([1, 4 / 8]);
    for (const id of ["r1", "r2", "b1", "b2", "r3", "r4", "o1"]) two.release(id);
    expect(two.loads).toEqual([0, 0]);
  } finally {
    await two.close();
  }
});

/** Runs one job to its end on `pool`, acknowledging its rows; resolves with its events. */
function runToEnd(j: Job): Promise<JobEvent[]> {
  return new Promise((resolve) => {
    const seen: JobEvent[] = [];
    const send = pool.assign(
      j,
      {
        onEvent: (e) => {
          seen.push(e);
          if (e.type === "rows") pool.ack(e.jobId);
          if (e.type === "done" || e.type === "error" || e.type === "unchanged") resolve(seen);
        },
      },
      null,
    );
    send!();
  });
}

test("a fetched source whose text is unchanged gives its room back too", async () => {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("The same text as before.") });
  try {
    const url = (id: string, indexedHash: string | null): Job => {
      const j = job(id, "");
      return {
        ...j,
        document: { ...j.document, type: "url", content: null, url: `${server.url}page`, indexedHash },
        fetch: { ...j.fetch, allow: ["127.0.0.1"] },
      };
    };
    const before = pool.idle;
    const first = (await runToEnd(url("fetched", null))).at(-1)!;
    expect(first.type).toBe("done");
    const hash = (first as Extract<JobEvent, { type: "done" }>).contentHash!;
    const again = await runToEnd(url("fetched-again", hash));
    expect(again.map((e) => e.type)).toEqual(["unchanged"]);
    expect(pool.idle).toBe(before);
    expect(pool.busy).toBe(0);
  } finally {
    server.stop(true);
  }
});

test("each ending reports the seconds of the stages the job went through", async () => {
  const end = (await runToEnd(job("timed", "Some text to time, stage by stage."))).at(-1)!;
  expect(end.type).toBe("done");
  const stages = (end as Extract<JobEvent, { type: "done" }>).stages!;
  expect(Object.keys(stages).sort()).toEqual(["chunk", "embed"]);
  for (const s of Object.values(stages)) expect(s).toBeGreaterThanOrEqual(0);
});

test("a cancelled job is heard of once its worker has ended it, and only then", async () => {
  const heard: string[] = [];
  let ended: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    ended = resolve;
  });
  pool.onStopped = (j) => {
    heard.push(j.jobId);
    ended();
  };
  try {
    const send = pool.assign(job("cancelled", "A text the worker starts on."), { onEvent: () => {} }, null);
    send!();
    pool.cancelJob("cancelled");
    // Not at the cancel: the worker may still be running it.
    expect(heard).toEqual([]);
    await stopped;
    expect(heard).toEqual(["cancelled"]);
  } finally {
    pool.onStopped = () => {};
  }
});
