/**
 * The main thread's messages to a worker go as one message per turn, each pipeline's
 * settings once (worker-wire.ts): what the worker reads back, after the structured
 * clone a worker's message goes through, is what was sent.
 */
import { expect, test } from "bun:test";
import type { Job, ToWorker } from "../src/ingest/job-types";
import { decodeTurn, encodeTurn } from "../src/ingest/run/worker-wire";

const job = (id: string, content: string | null, size = 200): Job => ({
  jobId: id,
  document: { id: `doc-${id}`, type: "text", content, url: null, fileName: null, fileSize: null, fileLocation: null },
  chunking: { strategy: "recursive", size, overlap: 0 },
  model: "builtin",
  language: "legacy",
  embed: { ollamaUrl: "http://127.0.0.1:1", openaiUrl: null, openaiKey: null, batchSize: 32 },
  fetch: { allow: ["10.0.0.0/8"], deny: [], maxBytes: 1024, timeoutMs: 1000 },
  ocr: { languages: ["eng", "deu"], pageTimeoutMs: 1000, dataDir: "." },
});

test("a turn of jobs and other messages reads back as sent", () => {
  const crawled: Job = {
    ...job("c", null),
    document: {
      ...job("c", null).document,
      type: "url",
      url: "https://example.com/",
      validators: { etag: '"x"', lastModified: null },
    },
    crawl: {
      settings: { maxPages: 5 },
      known: { "https://example.com/a": { etag: null, lastModified: "then" } },
      delayMs: 0,
      budgetMs: 1,
    } as unknown as Job["crawl"],
  };
  const turn: ToWorker[] = [
    { type: "priority", nice: 5 },
    { type: "job", job: job("a", 'café ☃ 🙂 \ud800 lone, \u2028 and "quotes"') },
    { type: "ack", jobId: "a" },
    { type: "job", job: job("b", "other pipeline", 512) },
    { type: "job", job: crawled },
    { type: "cancel", jobId: "b" },
    { type: "ping" },
  ];
  expect(decodeTurn(structuredClone(encodeTurn(turn)))).toEqual(turn);
});

test("settings that jobs share travel once", () => {
  const same = Array.from({ length: 50 }, (_, i): ToWorker => ({ type: "job", job: job(`j${i}`, `text ${i}`) }));
  const other: ToWorker = { type: "job", job: job("k", "text", 512) };
  const wire = encodeTurn([...same, other]);
  expect(wire.settings).toHaveLength(2);
  expect(JSON.stringify(wire).split('"ollamaUrl"').length - 1).toBe(2);
  expect(decodeTurn(structuredClone(wire))).toEqual([...same, other]);
});
