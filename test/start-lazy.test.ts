/**
 * What a server does not load while it starts (docs/notes/2026-12-06-release.md, Start):
 * the ingestion workers start with the first job sent to them, and the language detector
 * with the first detection.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import type { Job, JobEvent } from "../src/ingest/job-types";
import { WorkerPool } from "../src/ingest/run/pool";
import { createLogger } from "../src/log";

const job = (id: string): Job => ({
  jobId: id,
  document: {
    id: `doc-${id}`,
    type: "text",
    content: "A short text.",
    url: null,
    fileName: null,
    fileSize: null,
    fileLocation: null,
  },
  chunking: { strategy: "recursive", size: 200, overlap: 0 },
  model: "builtin",
  language: "legacy",
  embed: { ollamaUrl: "http://127.0.0.1:1", openaiUrl: null, openaiKey: null, batchSize: 32 },
  fetch: { allow: [], deny: [], maxBytes: 1024, timeoutMs: 1000 },
  ocr: { languages: ["eng"], pageTimeoutMs: 1000, dataDir: "." },
});

/** Sends one job to `pool` and runs it to its end, acknowledging its rows. */
function runToEnd(pool: WorkerPool, j: Job): Promise<string[]> {
  return new Promise((resolve) => {
    const seen: string[] = [];
    const onEvent = (e: JobEvent) => {
      seen.push(e.type);
      if (e.type === "rows") pool.ack(e.jobId);
      if (e.type === "done" || e.type === "error") resolve(seen);
    };
    expect(pool.run(j, { onEvent }, 0)).toBe(true);
  });
}

test("a pool starts no worker thread until a job is sent, then only the one it needs", async () => {
  const pool = new WorkerPool(
    2,
    createLogger("error", () => {}),
  );
  try {
    expect(pool.started).toBe(0);
    expect(pool.idle).toBe(64); // the room is there before the threads are
    // Taking room is not sending: still none.
    const send = pool.assign(job("held"), { onEvent: () => {} }, 0);
    expect(pool.started).toBe(0);
    pool.release("held");
    expect(send).not.toBeNull();
    expect(await runToEnd(pool, job("first"))).toEqual(["rows", "done"]);
    expect(pool.started).toBe(1);
  } finally {
    await pool.close();
  }
});

test("the language detector's data is evaluated at the first detection, not when detect.ts is loaded", async () => {
  // In a process of its own: a runner that keeps its module registry across files
  // (--no-isolate) may have loaded the data for another file already.
  const detect = join(import.meta.dir, "..", "src", "text", "detect.ts");
  const data = join(import.meta.dir, "..", "src", "text", "eld-data.ts");
  const script = `
    const { chunkLanguage } = await import(${JSON.stringify(detect)});
    const before = require.cache[${JSON.stringify(data)}] !== undefined;
    const language = chunkLanguage("the quick brown fox jumps over the lazy dog and runs far away".split(" "));
    const after = require.cache[${JSON.stringify(data)}] !== undefined;
    console.log(JSON.stringify({ before, language, after }));
  `;
  const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(p.stdout).text();
  expect(await p.exited).toBe(0);
  expect(JSON.parse(out)).toEqual({ before: false, language: "en", after: true });
});
