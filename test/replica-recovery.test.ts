/**
 * Replicas on a PostgreSQL server of the test's own (it is restarted here) and the bucket:
 * a replica holds no more tasks than its claim window (RAGD_REPLICA_CLAIMS per worker), so
 * the tasks beyond it stay queued for the others rather than wait for one replica (and,
 * were it killed, for its leases); and after PostgreSQL restarts, which ends the sessions
 * holding the serving lock, every replica takes its share of the lock again and serves.
 */
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REPLICA_CLAIMS_PER_WORKER } from "../src/config";
import { SERVING_CHECK_MS } from "../src/db/pg-store";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";
import { metricSum, type Replicas, startReplicas } from "./support/replicas";
import { haveRgw, NO_RGW } from "./support/rgw";
import { waitFor } from "./support/wait";

const ready = havePostgres && haveRgw;
if (!ready) console.log(`replica recovery tests skipped: ${havePostgres ? NO_RGW : NO_POSTGRES}`);

/** More small documents than one worker's claim window, fewer than its pool holds in hand (256). */
const DOCS = 200;
/** Each embedding call takes this long while the claims are counted (the client waits 60 s). */
const SLOW_MS = 40_000;
const SERVING = [0x72616764, 1] as const;

describe.skipIf(!ready)("replicas across a lost replica's share and a database restart", () => {
  let pg: TestPostgres;
  let sql: SQL;
  let databaseUrl = "";
  let set: Replicas;
  let ollama: FakeOllama;
  let key = "";

  beforeAll(async () => {
    ollama = await startFakeOllama({ models: { "all-minilm": 384 } });
    // Its own server: the second test restarts it.
    pg = await startPostgres({ own: true });
    databaseUrl = await pg.createDatabase("ragd_recovery");
    sql = new SQL(databaseUrl, { max: 1 });
    set = await startReplicas(1, {
      databaseUrl,
      env: { RAGD_WORKERS: "1", RAGD_OLLAMA_URL: ollama.url, RAGD_REPLICA_LEASE: "15s" },
    });
    const jar = set.client.jar;
    const up = await set.client.http("/api/auth/signup", {
      method: "POST",
      json: { email: "recovery@example.com", password: "correct horse battery" },
    });
    expect(up.status).toBe(201);
    const p = await set.client.http("/api/rag/pipelines", {
      method: "POST",
      json: { name: "Claims", embeddingModel: "ollama/all-minilm" },
      jar,
    });
    const k = await set.client.http(`/api/rag/pipelines/${p.body.id}/keys`, {
      method: "POST",
      json: { name: "app", scopes: ["query", "ingest"] },
      jar,
    });
    key = k.body.key;
  }, 240_000);

  afterAll(async () => {
    await sql?.close();
    await set?.stop();
    await pg?.stop();
    await ollama?.stop();
  }, 60_000);

  const bearer = () => ({ authorization: `Bearer ${key}` });
  const count = async (status: string): Promise<number> =>
    Number((await sql`SELECT count(*)::int AS n FROM tasks WHERE status = ${status}`)[0].n);
  const readyCount = async (i: number): Promise<number> =>
    metricSum(String((await set.at(i).http("/metrics")).body), "ragd_ingest_sources_total", { outcome: "ready" });

  test("a replica with one worker holds at most its claim window; the others take the rest", async () => {
    await ollama.set({ latencyMs: SLOW_MS });
    const documents = Array.from({ length: DOCS }, (_, i) => ({
      externalId: `doc-${i}`,
      type: "text",
      content: `Note ${i}: the ferry to island ${i} leaves from pier ${i % 7}.`,
    }));
    const put = await set.at(0).http("/api/rag/documents/batch", {
      method: "POST",
      json: { documents },
      headers: bearer(),
    });
    expect(put.status).toBe(200);
    // The one replica claims what it may within a beat or two; nothing ends while embedding is slow.
    await waitFor("the first claims", async () => (await count("processing")) > 0);
    let most = 0;
    for (let i = 0; i < 6; i++) {
      most = Math.max(most, await count("processing"));
      await Bun.sleep(500);
    }
    expect(most).toBe(REPLICA_CLAIMS_PER_WORKER);
    expect(await count("queued")).toBe(DOCS - REPLICA_CLAIMS_PER_WORKER);
    // Two more replicas start and claim what the first left queued.
    await Promise.all([set.add(), set.add()]);
    await waitFor("every task claimed", async () => (await count("queued")) === 0, 20_000);
    expect(await count("processing")).toBe(DOCS);
    await ollama.set({ latencyMs: 0 });
    await waitFor("every task ended", async () => (await count("processing")) + (await count("queued")) === 0, 90_000);
    const byReplica = await Promise.all([0, 1, 2].map(readyCount));
    expect(byReplica[0]).toBe(REPLICA_CLAIMS_PER_WORKER);
    expect(byReplica[1]! + byReplica[2]!).toBe(DOCS - REPLICA_CLAIMS_PER_WORKER);
  }, 180_000);

  test("after PostgreSQL restarts, every replica holds its share of the serving lock again, and serves", async () => {
    const holders = async () => {
      const rows = await sql`SELECT pid, mode FROM pg_locks WHERE locktype = 'advisory' AND classid = ${SERVING[0]}
        AND objid = ${SERVING[1]} AND objsubid = 2 AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      return rows as { pid: number; mode: string }[];
    };
    const before = await holders();
    expect(before.map((h) => h.mode)).toEqual(["ShareLock", "ShareLock", "ShareLock"]);
    await pg.pause();
    await pg.resume();
    // The restart ended this test's session too.
    await sql.close().catch(() => {});
    sql = new SQL(databaseUrl, { max: 1 });
    for (const i of set.live())
      await waitFor(
        `replica ${i} takes its claim again`,
        async () => set.logs(i).includes("its claim on the database is taken again"),
        4 * SERVING_CHECK_MS,
      );
    const after = await holders();
    expect(after.map((h) => h.mode)).toEqual(["ShareLock", "ShareLock", "ShareLock"]);
    expect(after.some((h) => before.some((b) => b.pid === h.pid))).toBe(false);
    // Each replica serves: its readiness, a new document ingested and found through it.
    for (const i of set.live())
      await waitFor(`replica ${i} ready`, async () => (await set.at(i).http("/readyz")).status === 200);
    const put = await set.at(1).http("/api/rag/documents/lock-1", {
      method: "PUT",
      json: { type: "text", content: "The lock keeper opens the gates at high water." },
      headers: bearer(),
    });
    expect(put.status).toBeLessThan(300);
    // Each replica finds it once its task has ended and that replica reads the table's new
    // version (a handle on a bucket's table looks for newer versions every
    // OBJECT_STORE_CONSISTENCY_S): the first query may still see the version before.
    for (const i of set.live())
      await waitFor(
        `replica ${i} finds the new document`,
        async () => {
          const q = await set.at(i).http("/api/rag/query", {
            method: "POST",
            json: { query: "when does the lock keeper open the gates", topK: 1 },
            headers: bearer(),
          });
          return String(q.body.results?.[0]?.content ?? "").includes("lock keeper");
        },
        30_000,
        200,
      );
  }, 120_000);
});
