/**
 * The ingestion time cap bounds a job's silence, not its length (docs/operations.md, Retries and the time cap):
 * with real worker threads and a slow fake Ollama, a job that keeps reporting progress
 * runs well past the cap and finishes, and one that reports nothing is stopped at it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Job, JobEvent } from "../src/ingest/job-types";
import { WorkerPool } from "../src/ingest/run/pool";
import { createLogger } from "../src/log";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";

const CAP_MS = 2000;
let ollama: FakeOllama;
let pool: WorkerPool;

beforeAll(async () => {
  ollama = await startFakeOllama({ models: { "all-minilm": 384 } });
  pool = new WorkerPool(
    1,
    createLogger("error", () => {}),
    32,
    CAP_MS,
  );
  // A worker's first job loads its modules, which takes a second on a busy machine: not the tests' subject.
  await run(job("warm-up"));
});
afterAll(async () => {
  await pool.close();
  await ollama.stop();
});

/** Twenty-four paragraphs of about 150 characters: as many chunks, a few per request. */
const paragraphs = Array.from({ length: 24 }, (_, i) =>
  `Paragraph ${i} tells of a scanned page that took its time. `.repeat(3).trim(),
).join("\n\n");

const job = (id: string): Job => ({
  jobId: id,
  document: {
    id: `doc-${id}`,
    type: "text",
    content: paragraphs,
    url: null,
    fileName: null,
    fileSize: null,
    fileLocation: null,
  },
  chunking: { strategy: "paragraph", size: 200, overlap: 0 },
  model: "ollama/all-minilm",
  language: "legacy",
  embed: { ollamaUrl: ollama.url, openaiUrl: null, openaiKey: null, batchSize: 1 },
  fetch: { allow: [], deny: [], maxBytes: 1024, timeoutMs: 1000 },
  // Under the cap, so that the cap is the test's.
  ocr: { languages: ["eng"], pageTimeoutMs: 100, dataDir: "." },
});

/** Runs a job to its end, acknowledging its rows; resolves with its events and how long it took. */
function run(j: Job): Promise<{ events: JobEvent[]; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const events: JobEvent[] = [];
    const send = pool.assign(
      j,
      {
        onEvent: (e) => {
          events.push(e);
          if (e.type === "rows") pool.ack(e.jobId);
          if (e.type === "done" || e.type === "error") resolve({ events, ms: performance.now() - started });
        },
      },
      null,
    );
    send!();
  });
}

test("a job that keeps reporting progress runs past the cap and finishes", async () => {
  // Requests of 1000 ms, 2 at a time, whose texts the worker gathers into calls of a few
  // (embed/batcher.ts): several seconds of work, progress as each call comes back.
  await ollama.set({ latencyMs: 1000 });
  const { events, ms } = await run(job("progressing"));
  expect(events.at(-1)).toMatchObject({ type: "done", chunkCount: 24 });
  expect(ms).toBeGreaterThan(CAP_MS + 1000);
  expect(events.filter((e) => e.type === "progress").length).toBeGreaterThan(2);
  expect(pool.busy).toBe(0);
}, 30_000);

test("a job that reports nothing is stopped at the cap, with the cap's message", async () => {
  // One request takes longer than the cap: after its first word (0 done) the job says nothing.
  await ollama.set({ latencyMs: 10_000 });
  const { events, ms } = await run(job("silent"));
  const end = events.at(-1)!;
  expect(end).toEqual({
    type: "error",
    jobId: "silent",
    message: "ingestion took longer than 0 minutes and was stopped",
    transient: false,
  });
  expect(events.filter((e) => e.type === "progress").map((e) => e.type === "progress" && e.done)).toEqual([0]);
  expect(ms).toBeGreaterThanOrEqual(CAP_MS - 50);
  expect(ms).toBeLessThan(CAP_MS + 1000);
  expect(pool.busy).toBe(0);
}, 30_000);

test("one OCR page may take its whole page timeout: the cap is never shorter", async () => {
  await ollama.set({ latencyMs: 10_000 });
  const patient = job("patient-page");
  const { events, ms } = await run({ ...patient, ocr: { ...patient.ocr, pageTimeoutMs: CAP_MS + 1500 } });
  expect(events.at(-1)).toMatchObject({
    type: "error",
    message: "ingestion took longer than 0 minutes and was stopped",
  });
  expect(ms).toBeGreaterThanOrEqual(CAP_MS + 1450);
  expect(ms).toBeLessThan(CAP_MS + 2500);
}, 30_000);
