/**
 * A full disk, for real: the compiled binary runs with its data directory on a
 * small tmpfs, a filler file takes the rest, and ragd must say so (507, a failed
 * source with a sentence naming the disk, /readyz 503), keep its log quiet, show
 * no path of the machine that built LanceDB, and, once the filler is gone, finish
 * the source by itself with exactly its chunks. Mounting needs root: without it the
 * tests are skipped, saying why.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary, type RunningBinary } from "./support/binary";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { duplicates, NO_DUPLICATES, openLanceDir, tableNameOf } from "./support/ingest";
import { waitFor } from "./support/wait";

const mountPoint = tempDir("ragd-disk-");
const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint], { stderr: "pipe" });
const mounted = mount.exitCode === 0;
if (!mounted)
  console.warn(`disk-full tests skipped: cannot mount a tmpfs (needs root): ${mount.stderr.toString().trim()}`);

const dataDir = join(mountPoint, "data");
const filler = join(mountPoint, "filler");
/** A path of the machine that built a dependency, or a Rust source location. */
const BUILD_PATH = /\/(usr|home|root)\/[^\s"]*cargo|\.rs:\d+/;
const SENTENCE = new RegExp(`the disk holding ${dataDir} is full \\(\\d+(\\.\\d)? MB free\\)`);

let fake: FakeOllama;
let server: RunningBinary | null = null;
const jar: { cookie?: string } = {};
/** About 220 chunks: 600 KB and more in LanceDB, where SQLite's next writes fit in 300 KB. */
const notes = Array.from({ length: 4000 }, (_, i) => `Paragraph ${i} about storage and recovery.`).join("\n\n");
/** Every response body seen, to look for build paths at the end. */
const seen: string[] = [];

async function call(path: string, init: RequestInit & { json?: unknown } = {}) {
  const r = await server!.http(path, { ...init, jar });
  seen.push(JSON.stringify(r.body));
  return r;
}

const freeMb = () => {
  const s = statfsSync(mountPoint);
  return (s.bavail * s.bsize) / 1048576;
};

/** Grows the filler until at most `leaveKb` are free (0: until the disk refuses). */
function fillDisk(leaveKb: number): void {
  const fd = openSync(filler, "a");
  const block = new Uint8Array(16 * 1024).fill(120);
  try {
    while (freeMb() * 1024 > leaveKb) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
}

/** The source, as the list of its pipeline shows it. */
async function source(pipelineId: string, id: string) {
  const r = await call(`/api/rag/pipelines/${pipelineId}/sources`);
  return (r.body as { id: string; status: string; error: string | null; chunkCount: number }[]).find(
    (x) => x.id === id,
  )!;
}

/**
 * Waits for the source's task to start. Under RAGD_MIN_FREE_MB no task starts, so one not
 * yet claimed when the disk fills would stay queued (disk-watch.ts): a busy machine's
 * claim came after the fill once, and the case waited 30 s for a failure.
 */
async function started(pipelineId: string, id: string): Promise<void> {
  await waitFor("the source's task to start", async () => (await source(pipelineId, id)).status === "processing");
}

/** `wait`, or its error with what the server logged besides requests: a timed-out wait says why. */
async function explained<T>(wait: Promise<T>): Promise<T> {
  try {
    return await wait;
  } catch (err) {
    const lines = (server?.logs() ?? "").split("\n").filter((l) => l && !l.includes('"msg":"request"'));
    throw new Error(`${(err as Error).message}\nthe server's log:\n${lines.slice(-30).join("\n")}`);
  }
}

/** The WAL's pages copied into the database file, beside the running server (SQLite's own passive checkpoint). */
function checkpoint(): void {
  const db = new Database(join(dataDir, "ragd.db"));
  try {
    db.run("PRAGMA wal_checkpoint(PASSIVE)");
  } finally {
    db.close();
  }
}

/** Ids of a source's chunks in LanceDB, read with the server stopped. */
async function storedRows(pipelineId: string, sourceId: string): Promise<string[]> {
  const conn = await openLanceDir(dataDir);
  // No re-index runs here: the pipeline's first generation is the one that answers.
  const table = await conn.openTable(tableNameOf(pipelineId, 1));
  const rows = await table.query().select(["id", "document_id"]).toArray();
  table.close();
  conn.close();
  return rows.filter((r) => String(r.document_id) === sourceId).map((r) => String(r.id));
}

async function stop(): Promise<void> {
  if (!server) return;
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  server = null;
}

/** Warn and error lines by message, counted. */
function loudLines(logs: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of logs.split("\n")) {
    if (!line.startsWith("{")) continue;
    const l = JSON.parse(line) as { level: string; msg: string };
    if (l.level === "warn" || l.level === "error") out.set(l.msg, (out.get(l.msg) ?? 0) + 1);
  }
  return out;
}

beforeAll(async () => {
  if (!mounted) return;
  await ensureBinary();
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
}, 120_000);

afterAll(async () => {
  await stop();
  await fake?.stop();
  // Lazily: a server killed by a failing test may still hold a file there for a moment.
  if (mounted) Bun.spawnSync(["umount", "-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

describe.skipIf(!mounted)("a full disk", () => {
  let pipelineId = "";
  let sourceId = "";

  test("a source whose chunks do not fit fails with a sentence, and new writes are 507", async () => {
    server = await startBinary(dataDir, { RAGD_OLLAMA_URL: fake.url, RAGD_MIN_FREE_MB: "1", RAGD_WORKERS: "1" });
    expect(
      (await call("/api/auth/signup", { method: "POST", json: { email: "d@example.com", password: "password123" } }))
        .status,
    ).toBe(201);
    const p = await call("/api/rag/pipelines", {
      method: "POST",
      json: { name: "Disk", embeddingModel: "all-minilm" },
    });
    expect(p.status).toBe(201);
    pipelineId = p.body.id;
    // Embedding takes a while, so the disk fills between the source's creation and its write.
    await fake.set({ latencyMs: 1500 });
    const s = await call(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", name: "notes", content: notes },
    });
    expect(s.status).toBe(201);
    sourceId = s.body.id;
    await started(pipelineId, sourceId);
    // The server copies its WAL into the database file in the background; a copy after the
    // fill would grow that file into the room left for recording the failure (a run in two
    // or three did), so the copy is made now.
    checkpoint();
    fillDisk(300);
    await fake.set({ latencyMs: 0 });

    const failed = await explained(
      waitFor(
        "the source to fail",
        async () => {
          const r = await source(pipelineId, sourceId);
          return r.status === "failed" ? r : null;
        },
        30_000,
      ),
    );
    expect(failed!.error).toMatch(SENTENCE);

    const more = await call(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", content: "one more" },
    });
    expect(more.status).toBe(507);
    expect(more.body.error.code).toBe("insufficient_storage");
    expect(more.body.error.message).toMatch(SENTENCE);

    const ready = await call("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.checks.find((c: { name: string }) => c.name === "disk").error).toMatch(SENTENCE);

    // Now nothing at all is left, not even for SQLite; several scheduling ticks (one a
    // second) later, each complaint has been logged at most once.
    fillDisk(0);
    const logFrom = server.logs().length;
    await Bun.sleep(6000);
    const loud = loudLines(server.logs().slice(logFrom));
    for (const [msg, n] of loud) expect(`${msg}: ${n}`).toBe(`${msg}: 1`);
  }, 90_000);

  test("once space is freed, the source becomes ready by itself with its chunks once", async () => {
    expect((await source(pipelineId, sourceId)).status).toBe("failed");
    rmSync(filler);
    const ready = await waitFor(
      "the source to be ready again",
      async () => {
        const r = await source(pipelineId, sourceId);
        return r.status === "ready" ? r : null;
      },
      60_000,
    );
    expect(ready!.error).toBeNull();
    expect(ready!.chunkCount).toBeGreaterThan(100);
    expect((await call("/readyz")).status).toBe(200);
    await stop();
    const rows = await storedRows(pipelineId, sourceId);
    expect(rows.length).toBe(ready!.chunkCount);
    expect(duplicates(rows)).toEqual(NO_DUPLICATES);
  }, 90_000);

  test("under RAGD_MIN_FREE_MB: /readyz is 503 with the reason, and creates and uploads are refused up front", async () => {
    await stop(); // still running if a test above failed
    const min = Math.ceil(freeMb()) + 2;
    server = await startBinary(dataDir, { RAGD_OLLAMA_URL: fake.url, RAGD_MIN_FREE_MB: String(min) });
    await call("/api/auth/login", { method: "POST", json: { email: "d@example.com", password: "password123" } });
    const ready = await call("/readyz");
    expect(ready.status).toBe(503);
    const disk = ready.body.checks.find((c: { name: string }) => c.name === "disk");
    expect(disk.error).toMatch(SENTENCE);
    expect(disk.error).toContain(`RAGD_MIN_FREE_MB is ${min}`);
    const text = await call(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", content: "refused" },
    });
    expect([text.status, text.body.error.code]).toEqual([507, "insufficient_storage"]);
    await stop();

    // With room, a file whose declared size would cross the minimum is still refused.
    server = await startBinary(dataDir, { RAGD_OLLAMA_URL: fake.url, RAGD_MIN_FREE_MB: "1" });
    await call("/api/auth/login", { method: "POST", json: { email: "d@example.com", password: "password123" } });
    expect((await call("/readyz")).status).toBe(200);
    const big = Math.ceil(freeMb() * 1048576);
    const file = await call(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "file", fileName: "big.txt", fileSize: big },
    });
    expect([file.status, file.body.error?.code]).toEqual([507, "insufficient_storage"]);
    const kb = await call("/api/kb", { method: "POST", json: { name: "Docs" } });
    const form = new FormData();
    form.append("file", new File([new Uint8Array(Math.ceil(freeMb() * 1048576))], "big.txt", { type: "text/plain" }));
    const upload = await call(`/api/kb/${kb.body.id}/upload`, { method: "POST", body: form });
    expect([upload.status, upload.body.error?.code]).toEqual([507, "insufficient_storage"]);
  }, 90_000);

  test("a failure that not even SQLite can record yet is recorded, then retried, once space is back", async () => {
    await fake.set({ latencyMs: 1500 });
    const s = await call(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", name: "more notes", content: notes },
    });
    expect(s.status).toBe(201);
    await started(pipelineId, s.body.id);
    const logFrom = server!.logs().length;
    fillDisk(0);
    await fake.set({ latencyMs: 0 });
    // The task meets the full disk: its failure is recorded, or SQLite refused to record it
    // and the engine says it tries again (outcome.ts).
    await explained(
      waitFor(
        "the second source's failure on the full disk",
        async () =>
          server!.logs().slice(logFrom).includes("could not record the end of an ingestion task") ||
          (await source(pipelineId, s.body.id)).status === "failed",
        30_000,
      ),
    );
    expect((await call("/readyz")).status).toBe(503);
    rmSync(filler);
    const ready = await waitFor(
      "the second source to be ready",
      async () => {
        const r = await source(pipelineId, s.body.id);
        return r.status === "ready" ? r : null;
      },
      80_000,
    );
    await stop();
    const rows = await storedRows(pipelineId, s.body.id);
    expect(rows.length).toBe(ready!.chunkCount);
    expect(duplicates(rows)).toEqual(NO_DUPLICATES);
  }, 120_000);

  test("no response showed a path of the machine that built ragd's libraries", () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const body of seen) expect(body).not.toMatch(BUILD_PATH);
  });
});
