/**
 * Backup and restore of a large pipeline, in process, with query latency beside it.
 *
 *   ./node_modules/.bin/bun bench/backup.ts [chunks=100000]
 *
 * Builds one pipeline of about `chunks` chunks (built-in embedder, 1000/200 recursive
 * chunks of generated text, 1 MB text sources) through the real ingestion engine, lets
 * index upkeep run, then prints: query p50 (hybrid, topK 10) with nothing else running;
 * the backup's time and archive size with p50 of the queries that ran during it; and the
 * restore's time. The queries go through the HTTP app (app.handle), one at a time.
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../src/app";
import { backupToFile, restoreBackup } from "../src/backup/backup";
import { defaultConfig } from "../src/config";
import { updateUserTier } from "../src/db/repo/users";
import { createLogger } from "../src/log";
import { closeServices, createServices } from "../src/services";
import { tempDir } from "../test/support/app";
import { random } from "./support";

const CHUNKS = Number(process.argv[2] ?? 100_000);
const PER_SOURCE = 1250; // about 1 MB of text at 1000/200 chunks
const root = tempDir("ragd-bench-backup-");
const dataDir = join(root, "data");
const config = { ...defaultConfig(), dataDir, log: "error" as const, queryRate: 1e6, queryBurst: 1e6 };
const services = await createServices(
  config,
  createLogger("error", () => {}),
);
const app = buildApp(services);
const rnd = random(1);
const VOCAB = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}${"aeiou"[i % 5]}`);
const words = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(" ");

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const signup = await call("POST", "/api/auth/signup", {
  email: "bench@example.com",
  password: "correct horse battery",
});
const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
await services.db.atomically((tx) => updateUserTier(tx, "bench@example.com", "unlimited"));
const p = (await call("POST", "/api/rag/pipelines", { name: "bench" }, { cookie })).body.id as string;
const sources = Math.ceil(CHUNKS / PER_SOURCE);
let started = Date.now();
for (let i = 0; i < sources; i++) {
  // ~6 characters a word: 800 characters of new text per chunk.
  await call("POST", `/api/rag/pipelines/${p}/sources`, { type: "text", content: words(PER_SOURCE * 134) }, { cookie });
}
for (;;) {
  const page = (await call("GET", `/api/rag/pipelines/${p}`, undefined, { cookie })).body;
  if (page.status === "ready") {
    console.log(
      `ingested ${page.chunkCount} chunks in ${sources} sources: ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    break;
  }
  await Bun.sleep(500);
}
started = Date.now();
await services.vectorStore.upkeep();
console.log(`index upkeep: ${((Date.now() - started) / 1000).toFixed(1)} s`);
const key = (await call("POST", `/api/rag/pipelines/${p}/keys`, { name: "k" }, { cookie })).body.key as string;

/** Runs queries one after another until `until` resolves (or `count` are done); returns their times. */
async function queries(until: Promise<unknown> | null, count = 100): Promise<number[]> {
  let done = false;
  void until?.then(() => (done = true));
  const times: number[] = [];
  for (let i = 0; until !== null ? !done : i < count; i++) {
    const t = performance.now();
    const r = await call("POST", "/api/rag/query", { query: words(4), topK: 10 }, { authorization: `Bearer ${key}` });
    if (r.status !== 200) throw new Error(`query: ${r.status}`);
    times.push(performance.now() - t);
  }
  return times;
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);

await queries(null, 20); // warm the caches
const idle = await queries(null, 100);
const file = join(root, "backup.tar");
// The longest the event loop went without running a timer while the backup ran.
let lag = 0;
let tick = performance.now();
const lagTimer = setInterval(() => {
  const now = performance.now();
  lag = Math.max(lag, now - tick - 10);
  tick = now;
}, 10);
started = Date.now();
const backup = backupToFile(dataDir, services.vectorStore, services.localFiles!, file);
const during = await queries(backup);
const { size } = await backup;
const backupMs = Date.now() - started;
clearInterval(lagTimer);
started = Date.now();
await restoreBackup(file, join(root, "restored"));
const restoreMs = Date.now() - started;
console.log(`query p50 without a backup: ${p50(idle)} ms (${idle.length} queries)`);
console.log(
  `backup: ${(backupMs / 1000).toFixed(1)} s, archive ${(size / 1e6).toFixed(1)} MB (data dir ${(statSync(join(dataDir, "ragd.db")).size / 1e6).toFixed(1)} MB in SQLite)`,
);
console.log(
  `query p50 during the backup: ${p50(during)} ms (${during.length} queries); longest event-loop stall ${lag.toFixed(0)} ms`,
);
console.log(`restore: ${(restoreMs / 1000).toFixed(1)} s`);
await closeServices(services);
rmSync(root, { recursive: true, force: true });
