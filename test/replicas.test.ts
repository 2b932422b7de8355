/**
 * Three `ragd serve` processes on one PostgreSQL database and one bucket form one service
 * (CONTRACT 14), seen from outside: a user's whole flow with each call going to the next
 * replica, every replica answering the same chunks, the event stream of one replica
 * carrying what another replica's request caused, a key revoked through one refused by
 * all, a presigned upload taken with no further call, and a replica killed while it holds
 * an ingestion task: the survivors finish every source, and the bucket's tables hold
 * exactly the chunks the database counts, each id once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { NO_DUPLICATES } from "./support/ingest";
import { havePostgres, NO_POSTGRES } from "./support/postgres";
import { metricSum, type Replicas, readStores, startReplicas } from "./support/replicas";
import { haveRgw, NO_RGW } from "./support/rgw";
import { SseReader } from "./support/sse";
import { waitFor } from "./support/wait";

const ready = havePostgres && haveRgw;
if (!ready) console.log(`replica tests skipped: ${havePostgres ? NO_RGW : NO_POSTGRES}`);

const PASSWORD = "correct horse battery";
/**
 * The replicas' task lease (RAGD_REPLICA_LEASE), shorter than the 30 s default so that the
 * kill -9 case waits less for a dead replica's tasks. A claim's lease runs at least two
 * thirds of it past the last renewal (one every third), so a stopped replica's tasks that
 * were not given back wait at least STOP_BOUND_MS plus a margin.
 */
const LEASE_S = 15;
/** Within this after a SIGTERM, every source is ready: well under 2/3 of the lease, so only giveBack makes it. */
const STOP_BOUND_MS = 8_000;
type Jar = { cookie?: string };
interface Account {
  jar: Jar;
  pipelineId: string;
  key: string;
}
interface Src {
  id: string;
  status: string;
  chunkCount: number;
}

describe.skipIf(!ready)("three ragd replicas on PostgreSQL and object storage", () => {
  let set: Replicas;
  let ollama: FakeOllama;
  let accounts = 0;

  beforeAll(async () => {
    ollama = await startFakeOllama({ models: { "all-minilm": 384 } });
    set = await startReplicas(3, {
      env: { RAGD_WORKERS: "1", RAGD_OLLAMA_URL: ollama.url, RAGD_REPLICA_LEASE: `${LEASE_S}s` },
    });
  }, 240_000);

  afterAll(async () => {
    await set?.stop();
    await ollama?.stop();
  }, 60_000);

  const rr = () => set.client;
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const query = (replica: number, key: string, text: string) =>
    set.at(replica).http("/api/rag/query", { method: "POST", json: { query: text, topK: 5 }, headers: bearer(key) });
  const sources = async (a: Account): Promise<Src[]> => {
    const r = await rr().http(`/api/rag/pipelines/${a.pipelineId}/sources`, { jar: a.jar });
    if (r.status !== 200) throw new Error(`list sources: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  /** The first live replica seen with a busy ingestion worker (/metrics). */
  const busyReplica = async (): Promise<number> =>
    (await waitFor(
      "a replica with a busy worker",
      async () => {
        for (const i of set.live()) {
          const m = String((await set.at(i).http("/metrics")).body);
          if (metricSum(m, "ragd_ingest_workers_busy") > 0) return i + 1;
        }
        return 0;
      },
      30_000,
      20,
    )) - 1;

  const allReady = (a: Account, n: number, timeoutMs = 30_000) =>
    waitFor(
      `${n} sources ready`,
      async () => {
        const all = await sources(a);
        if (all.length === n && all.every((s) => s.status === "ready")) return all;
        // Thrown, so that a timeout says where the sources stand.
        const by = new Map<string, number>();
        for (const s of all) by.set(s.status, (by.get(s.status) ?? 0) + 1);
        throw new Error(`${all.length} sources: ${[...by].map(([k, v]) => `${v} ${k}`).join(", ")}`);
      },
      timeoutMs,
      200,
    );

  /** A new user, signed up through the next replica, with a pipeline and a query+ingest key. */
  async function account(pipeline: Record<string, unknown> = {}, jar: Jar = {}): Promise<Account> {
    const email = `replica${++accounts}@example.com`;
    const up = await rr().http("/api/auth/signup", { method: "POST", json: { email, password: PASSWORD }, jar });
    expect(up.status).toBe(201);
    const p = await rr().http("/api/rag/pipelines", { method: "POST", json: { name: "Shared", ...pipeline }, jar });
    expect(p.status).toBe(201);
    const k = await rr().http(`/api/rag/pipelines/${p.body.id}/keys`, {
      method: "POST",
      json: { name: "app", scopes: ["query", "ingest"] },
      jar,
    });
    expect(k.status).toBe(201);
    return { jar, pipelineId: p.body.id, key: k.body.key };
  }

  async function addText(a: Account, name: string, content: string): Promise<string> {
    const r = await rr().http(`/api/rag/pipelines/${a.pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", name, content },
      jar: a.jar,
    });
    expect(r.status).toBe(201);
    return r.body.id;
  }

  test("a user's whole flow, each call to the next replica", async () => {
    const jar = rr().jar;
    const a = await account({}, jar);
    const login = await rr().http("/api/auth/login", {
      method: "POST",
      json: { email: `replica${accounts}@example.com`, password: PASSWORD },
    });
    expect(login.status).toBe(200);
    for (const i of [0, 1, 2]) expect((await set.at(i).http("/api/auth/me", { jar })).status).toBe(200);

    await addText(a, "tides", "The harbour master posts the tide tables at dawn.");
    await addText(a, "orchard", "Apple trees in the orchard bloom in April; pears follow in May.");
    await addText(a, "ferry", "The ferry to the island leaves every hour from pier four.");
    await allReady(a, 3);
    // Each replica answers the same chunks, in the same order, once its table handle has seen
    // the last commit: within OBJECT_STORE_CONSISTENCY_S of it (vectors/connection.ts).
    const answered = async (i: number) => {
      const r = await query(i, a.key, "when does the ferry leave");
      expect(r.status).toBe(200);
      const contents: string[] = r.body.results.map((h: { content: string }) => h.content);
      return contents.length === 3 ? contents : null;
    };
    const hits = await Promise.all(
      [0, 1, 2].map((i) => waitFor(`replica ${i} to see every source`, () => answered(i), 5_000)),
    );
    expect(hits[0][0]).toContain("pier four");
    expect(hits[1]).toEqual(hits[0]);
    expect(hits[2]).toEqual(hits[0]);

    // The documents API: created through one replica, unchanged through the next.
    const put = (replica: number) =>
      set.at(replica).http("/api/rag/documents/lamp-1", {
        method: "PUT",
        json: { type: "text", content: "The lighthouse lamp is lit at dusk and trimmed at midnight." },
        headers: bearer(a.key),
      });
    const created = await put(0);
    expect([created.status, created.body.status]).toEqual([201, "created"]);
    await allReady(a, 4);
    const again = await put(2);
    expect([again.status, again.body.status]).toEqual([200, "unchanged"]);

    // The stream of replica 0 carries the events of a document another replica took in.
    const res = await fetch(`${set.at(0).url}/api/rag/events`, { headers: bearer(a.key) });
    expect(res.status).toBe(200);
    const sse = new SseReader(res);
    const doc = await set.at(1).http("/api/rag/documents/bell-1", {
      method: "PUT",
      json: { type: "text", content: "The fog bell rings twice a minute when the light is hidden." },
      headers: bearer(a.key),
    });
    expect(doc.status).toBe(201);
    const frames = await sse.collect((f) => f.event === "source.ready" && f.data.sourceId === doc.body.source.id);
    await sse.close();
    const mine = frames.filter((f) => f.data.sourceId === doc.body.source.id).map((f) => f.event);
    expect(mine).toEqual(["source.queued", "source.processing", "source.ready"]);

    // A knowledge base: made through one replica, uploaded to through another, searched through each.
    const kb = await rr().http("/api/kb", { method: "POST", json: { name: "Notes" }, jar });
    expect(kb.status).toBe(201);
    const form = new FormData();
    form.append("file", new Blob(["Reset a password from the sign-in page's link."], { type: "text/plain" }), "r.txt");
    const up = await rr().http(`/api/kb/${kb.body.id}/upload`, { method: "POST", body: form, jar });
    expect(up.status).toBe(202);
    await waitFor("the kb document ready", async () => {
      const r = await rr().http(`/api/kb/${kb.body.id}`, { jar });
      return r.body.documents?.[0]?.status === "ready";
    });
    for (const i of [0, 1, 2]) {
      const s = await set
        .at(i)
        .http(`/api/kb/${kb.body.id}/search`, { method: "POST", json: { query: "password" }, jar });
      expect(s.status).toBe(200);
      expect(s.body.results[0].content).toContain("sign-in page");
    }

    // The dashboard, served by each.
    for (const i of [0, 1, 2]) {
      const page = await fetch(`${set.at(i).url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect((await fetch(`${set.at(i).url}/assets/app.js`)).status).toBe(200);
    }
  }, 90_000);

  test("a key revoked through one replica is refused by every replica on the next query", async () => {
    const a = await account();
    await addText(a, "winds", "Westerly winds bring rain to the harbour in autumn.");
    await allReady(a, 1);
    // Every replica has served the key once before it is revoked.
    for (const i of [0, 1, 2]) expect((await query(i, a.key, "westerly winds")).status).toBe(200);
    const keys = await rr().http(`/api/rag/pipelines/${a.pipelineId}/keys`, { jar: a.jar });
    const deleted = await rr().http(`/api/rag/pipelines/${a.pipelineId}/keys/${keys.body[0].id}`, {
      method: "DELETE",
      jar: a.jar,
    });
    expect(deleted.status).toBe(200);
    for (const i of [0, 1, 2]) {
      const r = await query(i, a.key, "westerly winds");
      expect({ replica: i, status: r.status }).toEqual({ replica: i, status: 401 });
    }
  }, 30_000);

  test("a file PUT straight to the store through its uploadUrl becomes ready with no further call", async () => {
    const a = await account();
    const text = "The keeper logs the barometer every morning. Storm shutters close when it drops.\n";
    const bytes = new TextEncoder().encode(text);
    const made = await set.at(0).http(`/api/rag/pipelines/${a.pipelineId}/sources`, {
      method: "POST",
      json: { type: "file", fileName: "keeper.txt", fileSize: bytes.length },
      jar: a.jar,
    });
    expect(made.status).toBe(201);
    expect(made.body.uploadUrl).toStartWith(`${set.storage.endpoint}/${set.storage.bucket}/`);
    expect((await fetch(made.body.uploadUrl, { method: "PUT", body: bytes })).status).toBe(200);
    // Only reads from here, and only through the other two replicas.
    let turn = 0;
    await waitFor(
      "the uploaded source ready",
      async () => {
        const r = await set.at(1 + (turn++ % 2)).http(`/api/rag/pipelines/${a.pipelineId}/sources/${made.body.id}`, {
          jar: a.jar,
        });
        return r.body.status === "ready";
      },
      60_000,
      250,
    );
    expect((await query(2, a.key, "barometer storm shutters")).body.results[0].content).toContain("keeper logs");
  }, 90_000);

  test("kill -9 of a replica holding a task: the others finish every source, nothing lost or doubled", async () => {
    const a = await account({ embeddingModel: "ollama/all-minilm", chunkSize: 120, chunkOverlap: 0 });
    // Slow enough that ingestion is under way when the kill lands, even when a loaded machine
    // answers /metrics slowly (at 400 ms a loaded run once saw no busy worker in 30 s).
    await ollama.set({ latencyMs: 1200 });
    const before = await Promise.all([0, 1, 2].map(readyCount));
    for (let i = 0; i < 40; i++) await addText(a, `doc ${i}`, docText(i));
    const killed = await busyReplica();
    await set.kill(killed);
    const killedAt = Date.now();
    expect((await sources(a)).filter((s) => s.status !== "ready").length).toBeGreaterThan(0);
    await allReady(a, 40, 90_000).catch((err) => {
      for (const i of set.live()) console.error(`replica ${i} log tail:\n${set.logs(i).slice(-3000)}`);
      throw err;
    });
    console.log(`replica ${killed} killed; every source ready ${((Date.now() - killedAt) / 1000).toFixed(1)} s later`);
    await ollama.set({ latencyMs: 0 });

    // Both survivors ran ingestion tasks of this test.
    for (const i of set.live()) {
      const ran = (await readyCount(i)) - before[i]!;
      expect({ replica: i, ranTasks: ran > 0 }).toEqual({ replica: i, ranTasks: true });
    }
    await expectStoresAgree(a.pipelineId, 40);

    // The killed replica starts again on its own directory and serves.
    await set.restart(killed);
    expect((await set.at(killed).http("/readyz")).status).toBe(200);
    expect((await query(killed, a.key, "cobalt record 1203")).status).toBe(200);
  }, 150_000);

  test("a replica stopped with SIGTERM leaves no task waiting for its lease", async () => {
    const a = await account({ embeddingModel: "ollama/all-minilm", chunkSize: 120, chunkOverlap: 0 });
    // Slow enough, and added at once, that some are still being embedded when the replicas are
    // looked at: added one by one at 400 ms an embedding, a loaded machine had ended them all.
    await ollama.set({ latencyMs: 1500 });
    await Promise.all(Array.from({ length: 30 }, (_, i) => addText(a, `stop ${i}`, docText(i + 100))));
    const stopped = await busyReplica();
    expect(await set.kill(stopped, "SIGTERM")).toBe(0);
    // What is left is quick to embed: the bound below measures the wait for tasks, not the work.
    await ollama.set({ latencyMs: 0 });
    const stoppedAt = Date.now();
    // It ends what its workers hold as it stops and gives back what it claimed beyond that
    // (leases.ts giveBack): well within the 10 s (2/3 of the lease) a killed replica's tasks wait at least.
    await allReady(a, 30, STOP_BOUND_MS);
    console.log(
      `replica ${stopped} stopped; every source ready ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s later`,
    );
    await expectStoresAgree(a.pipelineId, 30);
    await set.restart(stopped);
  }, 120_000);

  /** Tasks replica `i` has ended with `ready` since it started. */
  async function readyCount(i: number): Promise<number> {
    const m = String((await set.at(i).http("/metrics")).body);
    return metricSum(m, "ragd_ingest_sources_total", { outcome: "ready" });
  }

  /**
   * The database and the bucket agree: no task left, every document ready, and the
   * pipeline's one table holds exactly each document's chunk count, every id once.
   */
  async function expectStoresAgree(pipelineId: string, n: number): Promise<void> {
    const stored = await readStores(set, pipelineId);
    expect(stored.pending).toBe(0);
    expect(stored.docs).toHaveLength(n);
    for (const d of stored.docs) expect([d.id, d.status, d.chunkCount > 0]).toEqual([d.id, "ready", true]);
    expect(stored.tables).toEqual([stored.activeTable]);
    expect(stored.duplicates).toEqual(NO_DUPLICATES);
    for (const d of stored.docs) expect([d.id, stored.rowsPerDoc.get(d.id) ?? 0]).toEqual([d.id, d.chunkCount]);
    expect(stored.rows).toBe(stored.docs.reduce((s, d) => s + d.chunkCount, 0));
  }
});

/** A few paragraphs that no other source shares. */
const docText = (i: number) =>
  Array.from(
    { length: 4 },
    (_, p) =>
      `Paragraph ${p} of document ${i}. ` +
      Array.from(
        { length: 5 },
        (_, k) =>
          `The ${["amber", "basalt", "cobalt", "dune", "ember"][k]} record ${i * 100 + p * 10 + k} holds item${i}x${p}x${k}.`,
      ).join(" "),
  ).join("\n\n");
