/**
 * The compiled binary with its metadata in PostgreSQL (RAGD_DATABASE_URL), on a throwaway
 * server started here: `/readyz` names it, the whole flow of a user (sign-up, pipeline,
 * key, sources, documents API, events, queries) works and outlives a restart, the data
 * directory holds no ragd.db, `ragd user` works on the same database, and a second server
 * on it is refused (one server per database in this build), also after the database
 * restarted; a server whose database another server took meanwhile stops.
 */
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SERVING_CHECK_MS } from "../src/db/pg-store";
import { tempDir } from "./support/app";
import { ensureBinary, runCli, type RunningBinary, signUp, startBinary } from "./support/binary";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";
import { waitFor } from "./support/wait";

if (!havePostgres) console.log(`PostgreSQL serve tests skipped: ${NO_POSTGRES}`);

describe.skipIf(!havePostgres)("ragd serve on PostgreSQL", () => {
  let pg: TestPostgres;
  let url = "";
  let server: RunningBinary;
  const dataDir = tempDir("ragd-pgserve-");
  const jar: { cookie?: string } = {};
  let pipelineId = "";
  let key = "";

  const start = (dir = dataDir) => startBinary(dir, { RAGD_DATABASE_URL: url, RAGD_WORKERS: "1" });
  const sources = () => `/api/rag/pipelines/${pipelineId}/sources`;
  const query = (text: string) =>
    server.http("/api/rag/query", {
      method: "POST",
      json: { query: text, topK: 5 },
      headers: { authorization: `Bearer ${key}` },
    });
  const allReady = () =>
    waitFor("every source ready", async () => {
      const list = (await server.http(`${sources()}?pageSize=100`, { jar })).body;
      return list.data.length > 0 && list.data.every((s: { status: string }) => s.status === "ready");
    });

  beforeAll(async () => {
    await ensureBinary();
    // A server of its own: the tests below stop and restart it.
    pg = await startPostgres({ own: true });
    url = await pg.createDatabase("ragd_serve");
    server = await start();
  }, 120_000);

  afterAll(async () => {
    server?.proc.kill("SIGKILL");
    await pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  test("is ready, naming PostgreSQL among its checks, with no ragd.db in the data directory", async () => {
    const ready = await server.http("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toContainEqual({ name: "postgresql", ok: true });
    expect(existsSync(join(dataDir, "ragd.db"))).toBe(false);
  }, 60_000);

  test("a user's whole flow: sources ingested, queried, upserted unchanged, events replayed", async () => {
    expect(await signUp(server, "pg@example.com", jar)).toBe(201);
    pipelineId = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Harbour" }, jar })).body.id;
    const made = await server.http(`/api/rag/pipelines/${pipelineId}/keys`, {
      method: "POST",
      json: { name: "app", scopes: ["query", "ingest"] },
      jar,
    });
    expect(made.status).toBe(201);
    key = made.body.key;
    const text = await server.http(sources(), {
      method: "POST",
      json: {
        type: "text",
        name: "tides",
        content: "The harbour master posts the tide tables at dawn.",
        metadata: { team: "port" },
      },
      jar,
    });
    expect(text.status).toBe(201);
    const auth = { authorization: `Bearer ${key}` };
    const put = () =>
      server.http("/api/rag/documents/ferry-1", {
        method: "PUT",
        json: {
          type: "text",
          content: "The ferry to the island leaves every hour from pier four.",
          metadata: { team: "ferries" },
        },
        headers: auth,
      });
    expect((await put()).body.status).toBe("created");
    await allReady();
    expect((await put()).body.status).toBe("unchanged");
    const hit = await query("when does the ferry leave");
    expect(hit.status).toBe(200);
    expect(hit.body.results[0].content).toContain("pier four");
    const filtered = await server.http("/api/rag/query", {
      method: "POST",
      json: { query: "tide tables", topK: 5, filter: { metadata: { team: "port" } } },
      headers: auth,
    });
    expect(filtered.body.results.map((r: { content: string }) => r.content)).toEqual([
      "The harbour master posts the tide tables at dawn.",
    ]);
    const events = await fetch(`${server.url}/api/rag/events`, {
      headers: { ...auth, "last-event-id": "0" },
      signal: AbortSignal.timeout(3000),
    });
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    let seen = "";
    while (!/"status":"ready"[\s\S]*"status":"ready"/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    await reader.cancel();
    for (const type of ["source.queued", "source.processing", "source.ready"]) expect(seen).toContain(`event: ${type}`);
  }, 60_000);

  test("everything outlives a restart; `ragd user list` reads the same database", async () => {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    server = await start();
    await allReady();
    expect((await query("tide tables at dawn")).body.results[0].content).toContain("harbour master");
    const listed = runCli(["user", "list", "--data-dir", dataDir], { RAGD_DATABASE_URL: url });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("pg@example.com");
  }, 60_000);

  test("a second server on the same database is refused, and the first serves on", async () => {
    const other = tempDir("ragd-pgserve-other-");
    try {
      await start(other);
      throw new Error("the second server started");
    } catch (err) {
      expect(String(err)).toContain("is in use by another ragd server");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    expect((await server.http("/readyz")).status).toBe(200);
  }, 60_000);

  test("with the database stopped, /readyz is 503 naming it; once it is back, the server serves again", async () => {
    await pg.pause();
    const down = await server.http("/readyz");
    expect(down.status).toBe(503);
    expect(down.body.checks.find((c: { name: string }) => c.name === "postgresql")?.ok).toBe(false);
    await pg.resume();
    await waitFor("ready again", async () => (await server.http("/readyz")).status === 200);
    expect((await query("tide tables at dawn")).body.results[0].content).toContain("harbour master");
  }, 60_000);

  test("after the database restarts, the server takes its claim again: a second server is still refused", async () => {
    // The restart above ended the session holding the claim; the server notices within SERVING_CHECK_MS.
    const retaken = async () => server.logs().includes("its claim on the database is taken again");
    await waitFor("the claim taken again", retaken, 3 * SERVING_CHECK_MS);
    // Ingestion goes on too: no part of the server waits on a query the restart cut off.
    const put = await server.http("/api/rag/documents/lock-1", {
      method: "PUT",
      json: { type: "text", content: "The lock keeper opens the gates at high water." },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(put.body.status).toBe("created");
    await allReady();
    expect((await query("when are the gates opened")).body.results[0].content).toContain("lock keeper");
    const other = tempDir("ragd-pgserve-other-");
    try {
      await expect(start(other)).rejects.toThrow("is in use by another ragd server");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    expect((await server.http("/readyz")).status).toBe(200);
  }, 60_000);

  test("a server whose database another server took while it was down stops, exit 2", async () => {
    // Stands in for a second server alone that started while the first could not reach the
    // database: it holds the same claim, taken before the first looks again.
    const taker = new SQL(url, { max: 1 });
    let taken = false;
    try {
      for (let round = 0; round < 3 && !taken; round++) {
        await pg.pause();
        await pg.resume();
        const [row] = await taker`SELECT pg_try_advisory_lock(${0x72616764}, 1) AS ok`;
        taken = Boolean(row?.ok);
      }
      expect(taken).toBe(true);
      const code = await Promise.race([
        server.proc.exited,
        Bun.sleep(4 * SERVING_CHECK_MS).then(() => "still running"),
      ]);
      if (code !== 2) console.log(`the server (${code}) logged:\n${server.logs().slice(-4000)}`);
      expect(code).toBe(2);
      expect(server.logs()).toContain("another ragd server took the database while it was unreachable");
    } finally {
      await taker.close();
    }
  }, 90_000);
});
