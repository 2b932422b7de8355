/**
 * The event log and its SSE stream (docs/API.md, Events), through the HTTP door:
 * a source's lifecycle writes its events with its status changes, failures carry
 * their error, deletes and re-indexes are reported, and a client that hangs up and
 * comes back with Last-Event-ID misses nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WriteBatch } from "../src/db/batch";
import { ProgressBuffer } from "../src/ingest/tasks/progress";
import { createLogger } from "../src/log";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";
import { SseReader, type SseFrame } from "./support/sse";

let t: TestApp;
let c: Client;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  t = await makeApp({ fetchAllow: ["127.0.0.1"], workers: 1 });
  c = await Client.create(t);
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("gone", { status: 404 }) });
});

afterAll(async () => {
  site.stop(true);
  await t.close();
});

/** Opens the pipeline's event stream with the session, optionally resuming after `lastEventId`. */
async function open(pipelineId: string, lastEventId?: string, how: "header" | "query" = "header") {
  const q = lastEventId !== undefined && how === "query" ? `?lastEventId=${lastEventId}` : "";
  const headers: Record<string, string> = { cookie: c.cookie };
  if (lastEventId !== undefined && how === "header") headers["last-event-id"] = lastEventId;
  const res = await t.handle(new Request(`http://localhost/api/rag/pipelines/${pipelineId}/events${q}`, { headers }));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/event-stream");
  return new SseReader(res);
}

const ofSource = (id: string) => (f: SseFrame) => f.data.sourceId === id;

describe("events follow status changes", () => {
  test("a text source: queued, processing, ready, each with the source's fields", async () => {
    const pid = await c.pipeline();
    const sse = await open(pid, "0");
    const s = await c.addText(pid, "Event logs tell applications when ingestion ends.");
    const frames = (await sse.collect((f) => f.event === "source.ready")).filter(ofSource(s.id));
    await sse.close();
    expect(frames.map((f) => f.event)).toEqual(["source.queued", "source.processing", "source.ready"]);
    for (const f of frames) {
      expect(f.id).toBe(String(f.data.id));
      expect(f.data).toMatchObject({ type: f.event, pipelineId: pid, sourceId: s.id, externalId: null });
      expect(Date.parse(f.data.time)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(frames.map((f) => f.data.status)).toEqual(["queued", "processing", "ready"]);
    // The stream says what the source list says.
    expect((await c.source(pid, s.id))!.status).toBe("ready");
  });

  test("a failing source ends with source.failed carrying the error; delete says source.deleted", async () => {
    const pid = await c.pipeline();
    const sse = await open(pid, "0");
    const r = await c.addSource(pid, { type: "url", url: `http://127.0.0.1:${site.port}/missing` });
    expect(r.status).toBe(201);
    const frames = await sse.collect((f) => f.event === "source.failed");
    const failed = frames.at(-1)!;
    expect(failed.data).toMatchObject({ sourceId: r.body.id, status: "failed" });
    expect(failed.data.error).toContain("404");
    expect(failed.data.error).toBe((await c.source(pid, r.body.id))!.error);
    expect((await c.call("DELETE", `/api/rag/pipelines/${pid}/sources/${r.body.id}`)).status).toBe(200);
    const deleted = await sse.next();
    await sse.close();
    expect(deleted.event).toBe("source.deleted");
    expect(deleted.data).toMatchObject({ sourceId: r.body.id, status: "deleted", pipelineId: pid });
  });

  test("a re-index queues every source again and ends with reindex.completed", async () => {
    const pid = await c.pipeline();
    const s = await c.addText(pid, "Re-indexing rebuilds every chunk with the current settings.");
    await c.settled(pid, s.id);
    const sse = await open(pid); // from now on only
    expect((await c.call("POST", `/api/rag/pipelines/${pid}/reindex`)).status).toBe(202);
    const frames = await sse.collect((f) => f.event === "reindex.completed");
    await sse.close();
    expect(frames.map((f) => f.event)).toEqual([
      "source.queued",
      "source.processing",
      "source.ready",
      "reindex.completed",
    ]);
    expect(frames.at(-1)!.data).toMatchObject({ pipelineId: pid, sourceId: null, status: "completed" });
  });

  test("a stream opened with a session ends once that session does (signed out)", async () => {
    const other = await Client.create(t);
    const pid = await other.pipeline();
    const res = await t.handle(
      new Request(`http://localhost/api/rag/pipelines/${pid}/events`, { headers: { cookie: other.cookie } }),
    );
    expect(res.status).toBe(200);
    const out = await t.call("POST", "/api/auth/logout", {
      cookie: other.cookie,
      headers: { "content-type": "application/json" },
    });
    expect(out.status).toBe(204);
    // Within the stream's check (2 s).
    const reader = res.body!.getReader();
    const started = Date.now();
    const ended = (async () => {
      while (!(await reader.read()).done);
      return Date.now() - started;
    })();
    const late = Bun.sleep(6000).then(() => null);
    const took = await Promise.race([ended, late]);
    if (took === null) await reader.cancel().catch(() => {});
    expect(took).not.toBeNull();
    expect(took!).toBeLessThan(3500);
  });

  test("another user's pipeline has no stream for you (404)", async () => {
    const other = await Client.create(t);
    const pid = await c.pipeline();
    const r = await other.call("GET", `/api/rag/pipelines/${pid}/events`);
    expect(r.status).toBe(404);
  });
});

describe("resuming with Last-Event-ID", () => {
  test("a client that hangs up and comes back misses nothing and sees nothing twice", async () => {
    const pid = await c.pipeline();
    const first = await open(pid, "0");
    const a = await c.addText(pid, "The first source arrives while the client listens.");
    const seen = await first.collect((f) => f.event === "source.ready" && f.data.sourceId === a.id);
    await first.close();
    // While nobody listens: more sources come and go.
    const b = await c.addText(pid, "The second source arrives while the client is away.");
    const d = await c.addText(pid, "The third one too, and it is deleted at once.");
    await c.settled(pid, b.id);
    expect((await c.call("DELETE", `/api/rag/pipelines/${pid}/sources/${d.id}`)).status).toBe(200);
    const second = await open(pid, seen.at(-1)!.id!);
    const rest = await second.collect((f) => f.event === "source.deleted" && f.data.sourceId === d.id);
    await second.close();
    const ids = [...seen, ...rest].map((f) => Number(f.id));
    expect(new Set(ids).size).toBe(ids.length);
    // Everything the log holds for the pipeline, in order, was received exactly once.
    const stored = t.services.db.reader.$client
      .query("SELECT id FROM events WHERE collection_id = ? ORDER BY id")
      .all(pid)
      .map((r: any) => r.id as number);
    expect(ids).toEqual(stored);
    expect(rest.filter((f) => f.data.sourceId === b.id).map((f) => f.event)).toEqual([
      "source.queued",
      "source.processing",
      "source.ready",
    ]);
  });

  test("the first frame names where the stream starts, so a client back before any event misses nothing", async () => {
    const pid = await c.pipeline();
    const before = await c.addText(pid, "Written before the stream opened.");
    await c.settled(pid, before.id);
    const res = await t.handle(
      new Request(`http://localhost/api/rag/pipelines/${pid}/events`, { headers: { cookie: c.cookie } }),
    );
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    // As an EventSource keeps it: the id it sends back as Last-Event-ID when it reconnects.
    const id = /^retry: 3000\nid: (\d+)\n\n/.exec(first)?.[1];
    expect(id).toBeDefined();
    const away = await c.addText(pid, "Written while the client was away.");
    await c.settled(pid, away.id);
    const back = await open(pid, id);
    const frames = await back.collect((f) => f.event === "source.ready");
    await back.close();
    expect(frames.map((f) => [f.event, f.data.sourceId])).toEqual([
      ["source.queued", away.id],
      ["source.processing", away.id],
      ["source.ready", away.id],
    ]);
  });

  test("the lastEventId query parameter resumes too", async () => {
    const pid = await c.pipeline();
    const s = await c.addText(pid, "EventSource cannot set headers on its first connection.");
    await c.settled(pid, s.id);
    const all = await (await open(pid, "0")).collect((f) => f.event === "source.ready");
    const after = await open(pid, all[0]!.id!, "query");
    const rest = await after.collect((f) => f.event === "source.ready");
    await after.close();
    expect(rest.map((f) => f.id)).toEqual(all.slice(1).map((f) => f.id));
  });

  test("an id older than the retention window gets stream.reset, then what is kept", async () => {
    const pid = await c.pipeline();
    const s = await c.addText(pid, "Old events are pruned after the retention window.");
    await c.settled(pid, s.id);
    const all = await (await open(pid, "0")).collect((f) => f.event === "source.ready");
    // The first event falls out of the window.
    await t.services.db.atomically((tx) =>
      tx.$client.run("UPDATE events SET created_at = '2000-01-01T00:00:00.000Z' WHERE id = ?", [Number(all[0]!.id)]),
    );
    await t.services.events.prune();
    const sse = await open(pid, all[0]!.id!);
    const reset = await sse.next();
    expect(reset.event).toBe("stream.reset");
    expect(reset.id).toBeNull();
    expect(reset.data).toEqual({ lastEventId: Number(all[0]!.id), oldestEventId: Number(all[1]!.id) });
    const kept = await sse.collect((f) => f.event === "source.ready");
    await sse.close();
    expect(kept.map((f) => f.id)).toEqual(all.slice(1).map((f) => f.id));
  });

  test("new events are pushed promptly, not found by polling", async () => {
    const pid = await c.pipeline();
    const sse = await open(pid);
    const started = Date.now();
    const s = await c.addText(pid, "Pushed, not polled.");
    const f = await sse.next(5000);
    await sse.close();
    expect(f).toMatchObject({ event: "source.queued", data: { sourceId: s.id } });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("pruning", () => {
  test("keeps events inside the window and drops older ones", async () => {
    const pid = await c.pipeline();
    const s = await c.addText(pid, "Pruning keeps the log small.");
    await c.settled(pid, s.id);
    const db = t.services.db.reader.$client;
    const count = () => (db.query("SELECT count(*) AS n FROM events WHERE collection_id = ?").get(pid) as any).n;
    const before = count();
    expect(before).toBe(3);
    await t.services.events.prune();
    expect(count()).toBe(before);
    await t.services.db.atomically((tx) =>
      tx.$client.run("UPDATE events SET created_at = '2000-01-01T00:00:00.000Z' WHERE collection_id = ?", [pid]),
    );
    await t.services.events.prune();
    expect(count()).toBe(0);
  });
});

describe("progress events", () => {
  test("a long-running document reports progress at most every 2 s, not on every progress report", async () => {
    const pid = await c.pipeline();
    const s = await c.addText(pid, "A long document, as far as the progress buffer knows.");
    await c.settled(pid, s.id);
    const db = t.services.db;
    const progress = new ProgressBuffer(
      new WriteBatch(db),
      createLogger("error", () => {}),
    );
    // 45 reports over 4.5 s, as a worker embedding a large file sends them.
    for (let i = 1; i <= 45; i++) {
      progress.set(s.id, i, 45);
      await Bun.sleep(100);
    }
    const rows = db.reader.$client
      .query("SELECT data FROM events WHERE document_id = ? AND type = 'source.processing' AND data <> '{}'")
      .all(s.id) as { data: string }[];
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(3);
    const first = JSON.parse(rows[0]!.data);
    expect(first.progress.total).toBe(45);
    expect(first.progress.done).toBeGreaterThanOrEqual(15);
  });
});
