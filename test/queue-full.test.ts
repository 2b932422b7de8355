/** A full ingestion queue is 429 with Retry-After at every door that queues work (docs/API.md, Errors). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { QUEUE_LIMIT } from "../src/ingest/tasks/queue-room";
import { email, makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let pipelineId: string;
let kbId: string;
let ingestKey: string;

beforeAll(async () => {
  t = await makeApp();
  cookie = await t.signup(email("queue-full"));
  pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "full queue" } })).body.id;
  kbId = (await t.call("POST", "/api/kb", { cookie, body: { name: "full queue kb" } })).body.id;
  ingestKey = (
    await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { cookie, body: { name: "w", scopes: ["ingest"] } })
  ).body.key;
  const doc = await t.call("POST", `/api/rag/pipelines/${pipelineId}/sources`, {
    cookie,
    body: { type: "file", fileName: "wait.txt", fileSize: 10 },
  });
  // QUEUE_LIMIT queued tasks that never come due: the queue is full and stays so.
  const now = new Date().toISOString();
  await t.services.db.atomically((tx) => {
    const insert = tx.$client.prepare(
      "INSERT INTO tasks (id, document_id, collection_id, generation, status, attempts, run_after, created_at, updated_at) VALUES (?, ?, ?, 1, 'queued', 0, '9999-01-01T00:00:00.000Z', ?, ?)",
    );
    for (let i = 0; i < QUEUE_LIMIT; i++) insert.run(Bun.randomUUIDv7(), doc.body.id, pipelineId, now, now);
  });
  // The engine recounts the queue at most every 250 ms (a bound, not an exact gate).
  await Bun.sleep(300);
});
afterAll(() => t.close());

describe("a full ingestion queue", () => {
  const doors: [string, () => Promise<Response>][] = [
    [
      "a new source",
      () =>
        t.handle(
          new Request(`http://localhost/api/rag/pipelines/${pipelineId}/sources`, {
            method: "POST",
            headers: { cookie, "content-type": "application/json", origin: "http://localhost" },
            body: JSON.stringify({ type: "text", content: "one more" }),
          }),
        ),
    ],
    [
      "a knowledge-base upload",
      () => {
        const form = new FormData();
        form.append("file", new File(["one more"], "more.txt", { type: "text/plain" }));
        return t.handle(
          new Request(`http://localhost/api/kb/${kbId}/upload`, {
            method: "POST",
            headers: { cookie, origin: "http://localhost" },
            body: form,
          }),
        );
      },
    ],
    [
      "a documents API upsert",
      () =>
        t.handle(
          new Request("http://localhost/api/rag/documents/more", {
            method: "PUT",
            headers: { authorization: `Bearer ${ingestKey}`, "content-type": "application/json" },
            body: JSON.stringify({ type: "text", content: "one more" }),
          }),
        ),
    ],
  ];
  test.each(doors)("refuses %s with 429 and Retry-After", async (_, send) => {
    const res = await send();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    const body = await res.json();
    expect(body.error).toEqual({ code: "rate_limited", message: "the ingestion queue is full; try again in a minute" });
  });
});
