/**
 * The event stream through the compiled binary over real HTTP: frames arrive as they
 * are written, a stream outlives the server's idle timeout, and a graceful stop
 * (SIGTERM) ends open streams instead of waiting for them forever.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureBinary, startBinary, type RunningBinary } from "./support/binary";
import { tempDir } from "./support/app";
import { SseReader } from "./support/sse";

let bin: RunningBinary;
const jar: { cookie?: string } = {};

beforeAll(async () => {
  await ensureBinary();
  // Both shortened, so a stream can be seen to outlive the idle timeout in seconds.
  bin = await startBinary(tempDir(), { RAGD_WORKERS: "1", RAGD_IDLE_TIMEOUT: "1", RAGD_EVENT_HEARTBEAT: "1" });
  const signup = await bin.http("/api/auth/signup", {
    method: "POST",
    json: { email: "events@example.com", password: "a good password" },
    jar,
  });
  expect(signup.status).toBe(201);
}, 60_000);

afterAll(() => {
  bin?.proc.kill();
});

test("a stream stays open past the idle timeout, heartbeat after heartbeat", async () => {
  const p = (await bin.http("/api/rag/pipelines", { method: "POST", json: { name: "idle" }, jar })).body;
  const res = await fetch(`${bin.url}/api/rag/pipelines/${p.id}/events`, { headers: { cookie: jar.cookie! } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  // With a 1 s idle timeout the server cut a stream 1 to 4 s in (its timer ticks every few
  // seconds); five heartbeats, one a second, outlast that.
  const heartbeats = () => text.match(/^: heartbeat$/gm)?.length ?? 0;
  while (heartbeats() < 5) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  expect(heartbeats()).toBe(5);
  expect(text).toStartWith("retry: 3000\nid: 0\n\n"); // a pipeline without events yet
}, 30_000);

test("a stream over HTTP gets the lifecycle, and SIGTERM ends it and the process", async () => {
  const p = (await bin.http("/api/rag/pipelines", { method: "POST", json: { name: "live" }, jar })).body;
  const res = await fetch(`${bin.url}/api/rag/pipelines/${p.id}/events`, { headers: { cookie: jar.cookie! } });
  expect(res.status).toBe(200);
  const sse = new SseReader(res);
  const s = await bin.http(`/api/rag/pipelines/${p.id}/sources`, {
    method: "POST",
    json: { type: "text", content: "Streams end when the server stops." },
    jar,
  });
  expect(s.status).toBe(201);
  const frames = await sse.collect((f) => f.event === "source.ready");
  expect(frames.map((f) => f.event)).toEqual(["source.queued", "source.processing", "source.ready"]);
  const started = Date.now();
  bin.proc.kill("SIGTERM");
  expect(await bin.proc.exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000);
  await expect(sse.next(2000)).rejects.toThrow();
}, 60_000);
