/**
 * The refresh schedule across a kill -9 of the compiled binary (docs/API.md,
 * "Refresh and crawl"): due times are kept, and sources that fell due while ragd
 * was down are spread out rather than all fetched the moment it starts again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary, type RunningBinary } from "./support/binary";
import { waitFor } from "./support/ingest";

const hits: number[] = [];
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    hits.push(Date.now());
    return new Response(`The page at ${new URL(req.url).pathname} says hello to its readers.`);
  },
});
let dataDir: string;
let server: RunningBinary | null = null;
const jar: { cookie?: string } = {};
const env = { RAGD_FETCH_ALLOW: "127.0.0.1", RAGD_WORKERS: "1" };

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-refresh-bin-");
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  site.stop(true);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function kill(): Promise<void> {
  server!.proc.kill("SIGKILL");
  await server!.proc.exited;
  server = null;
}

test("due times survive kill -9; what fell due meanwhile is spread, not fetched at once", async () => {
  server = await startBinary(dataDir, env);
  await server.http("/api/auth/signup", {
    method: "POST",
    json: { email: "refresh@example.com", password: "correct horse battery" },
    jar,
  });
  const pid = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "r" }, jar })).body.id;
  for (let i = 0; i < 12; i++) {
    const r = await server.http(`/api/rag/pipelines/${pid}/sources`, {
      method: "POST",
      json: { type: "url", url: `http://127.0.0.1:${site.port}/p${i}`, refreshEvery: "2m" },
      jar,
    });
    expect(r.status).toBe(201);
  }
  const list = async () =>
    (await server!.http(`/api/rag/pipelines/${pid}/sources`, { jar })).body as {
      id: string;
      status: string;
      nextCheckAt: string;
    }[];
  await waitFor("all ready", async () => ((await list()).every((s) => s.status === "ready") ? true : undefined));
  const due = new Map((await list()).map((s) => [s.id, s.nextCheckAt]));

  await kill();
  server = await startBinary(dataDir, env);
  expect(new Map((await list()).map((s) => [s.id, s.nextCheckAt]))).toEqual(due);

  // All twelve fall due while ragd is down.
  await kill();
  const db = new Database(join(dataDir, "ragd.db"));
  db.run("UPDATE source_fetches SET next_check_at = '2000-01-01T00:00:00.000Z'");
  db.close();
  const before = hits.length;
  const started = Date.now();
  // The schedule looked at every 250 ms: the window below holds six looks, not one.
  server = await startBinary(dataDir, { ...env, RAGD_REFRESH_CHECK_EVERY: "250ms" });
  const spread = (await list()).map((s) => Date.parse(s.nextCheckAt) - started).sort((a, b) => a - b);
  // One in each twelfth of the two-minute interval (10 s slots, a random point in each).
  expect(spread[0]!).toBeGreaterThanOrEqual(0);
  expect(spread[11]!).toBeLessThanOrEqual(125_000);
  for (let i = 2; i < spread.length; i++) expect(spread[i]! - spread[i - 2]!).toBeGreaterThan(9000);
  // Nothing to wait for but the looks themselves: a burst would come at the first of them.
  await Bun.sleep(1500 - (Date.now() - started));
  const early = hits.slice(before).filter((t) => t - started < 6000).length;
  expect(early).toBeLessThanOrEqual(1);
}, 120_000);
