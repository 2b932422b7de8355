/**
 * Several `ragd serve` processes forming one service (CONTRACT 14): one PostgreSQL
 * database and one bucket of an S3-compatible store, shared by every replica through the
 * same environment, and a data directory of its own for each. A round-robin client sends
 * each call to the next live replica, as a load balancer would, with one cookie jar for
 * all of them; a replica can be killed with any signal and started again on its own
 * directory. What the replicas share is only what users and operators see: HTTP, the
 * binary, the database and the bucket.
 *
 * @example
 *   const set = await startReplicas(3, { env: { RAGD_WORKERS: "1" } });
 *   await set.client.http("/api/auth/signup", { method: "POST", json: { email, password } });
 *   await set.kill(0);
 *   await set.restart(0);
 *   await set.stop();
 */
import { SQL } from "bun";
import { rmSync } from "node:fs";
import type { ObjectStorage } from "../../src/config-storage";
import { openLance } from "../../src/vectors/connection";
import { tempDir } from "./app";
import { ensureBinary, type RunningBinary, startBinary } from "./binary";
import { duplicates, tableNameOf } from "./ingest";
import { startPostgres, type TestPostgres } from "./postgres";
import { startRgw, type TestRgw } from "./rgw";

type Jar = { cookie?: string };
type HttpInit = Parameters<RunningBinary["http"]>[1];
type HttpReply = Awaited<ReturnType<RunningBinary["http"]>>;

export interface ReplicaOptions {
  /** More settings for every replica (RAGD_WORKERS, RAGD_OLLAMA_URL, …). */
  env?: Record<string, string>;
  /** A database to use instead of a new one on a server started here. */
  databaseUrl?: string;
  /** A bucket to use instead of one on a store started here; its prefix is kept. */
  storage?: ObjectStorage;
  /** The prefix inside a bucket started here ("ragd" unless told). */
  prefix?: string;
  /** How long one replica may take to say it listens. */
  startTimeoutMs?: number;
}

/** Sends each call to the next live replica; the reply says which one answered. */
export interface RoundRobin {
  /** The session every replica sees. */
  jar: Jar;
  /** Like RunningBinary.http; a request with its own Authorization goes without the session cookie. */
  http(path: string, init?: HttpInit): Promise<HttpReply & { replica: number }>;
}

export interface Replicas {
  databaseUrl: string;
  /** The bucket and prefix every replica keeps its tables and files in. */
  storage: ObjectStorage;
  /** The environment every replica is started with. */
  env: Record<string, string>;
  /** How many replicas there are, up or down. */
  readonly count: number;
  /** The indexes of the replicas that are up. */
  live(): number[];
  /** Replica `i`; throws when it is down. */
  at(i: number): RunningBinary;
  client: RoundRobin;
  /** Everything replica `i` logged, over all its lives. */
  logs(i: number): string;
  /** Sends `signal` (SIGKILL unless told) and waits for the exit; its exit code. */
  kill(i: number, signal?: NodeJS.Signals): Promise<number>;
  /** Starts replica `i` again on its own data directory. */
  restart(i: number): Promise<RunningBinary>;
  /** Starts one more replica; its index. */
  add(): Promise<number>;
  /** Kills every replica, stops what was started here, removes the data directories. */
  stop(): Promise<void>;
}

/** Replicas left running when the test process ends without stop(). */
const running = new Set<RunningBinary>();
process.once("exit", () => {
  for (const r of running) r.proc.kill("SIGKILL");
});

/** The environment of CONTRACT 14: PostgreSQL for the metadata, the bucket for tables and files. */
export function sharedEnv(databaseUrl: string, storage: ObjectStorage): Record<string, string> {
  return {
    RAGD_DATABASE_URL: databaseUrl,
    RAGD_STORAGE_URL: `s3://${storage.bucket}${storage.prefix ? `/${storage.prefix}` : ""}`,
    RAGD_S3_ENDPOINT: storage.endpoint ?? "",
    RAGD_S3_REGION: storage.region,
    RAGD_S3_ACCESS_KEY_ID: storage.accessKeyId ?? "",
    RAGD_S3_SECRET_ACCESS_KEY: storage.secretAccessKey ?? "",
  };
}

/**
 * Starts `n` replicas, with the database and the bucket (started here unless given).
 * The first starts alone, so that it creates the schema; the others then start together.
 */
export async function startReplicas(n: number, opts: ReplicaOptions = {}): Promise<Replicas> {
  await ensureBinary();
  let pg: TestPostgres | null = null;
  let rgw: TestRgw | null = null;
  const stopShared = async () => {
    await rgw?.stop();
    await pg?.stop();
  };
  let set: Replicas;
  try {
    if (!opts.databaseUrl) pg = await startPostgres();
    const databaseUrl = opts.databaseUrl ?? (await pg!.createDatabase("ragd_replicas"));
    if (!opts.storage) rgw = await startRgw();
    const storage = opts.storage ?? { ...rgw!.storage, prefix: opts.prefix ?? "ragd" };
    set = replicaSet(databaseUrl, storage, opts, stopShared);
  } catch (err) {
    await stopShared();
    throw err;
  }
  try {
    if (n > 0) await set.add();
    // Every start is let finish, so that stop() below finds each one that came up.
    const rest = await Promise.allSettled(Array.from({ length: n - 1 }, () => set.add()));
    const failed = rest.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  } catch (err) {
    await set.stop();
    throw err;
  }
  return set;
}

function replicaSet(
  databaseUrl: string,
  storage: ObjectStorage,
  opts: ReplicaOptions,
  stopShared: () => Promise<void>,
): Replicas {
  const env = { ...sharedEnv(databaseUrl, storage), ...opts.env };
  const dirs: string[] = [];
  const up: (RunningBinary | null)[] = [];
  /** The logs of each replica's former lives. */
  const past: string[] = [];
  const launch = async (i: number) => {
    const r = await startBinary(dirs[i]!, env, undefined, opts.startTimeoutMs ?? 60_000);
    running.add(r);
    up[i] = r;
    return r;
  };
  const at = (i: number) => {
    const r = up[i];
    if (!r) throw new Error(`replica ${i} is down`);
    return r;
  };
  const live = () => up.flatMap((r, i) => (r ? [i] : []));
  const set: Replicas = {
    databaseUrl,
    storage,
    env,
    get count() {
      return up.length;
    },
    live,
    at,
    client: roundRobin(live, at),
    logs: (i) => past[i]! + (up[i]?.logs() ?? ""),
    async kill(i, signal = "SIGKILL") {
      const r = at(i);
      r.proc.kill(signal);
      const code = await r.proc.exited;
      past[i] += r.logs();
      running.delete(r);
      up[i] = null;
      return code;
    },
    restart: (i) => {
      if (up[i]) throw new Error(`replica ${i} is still up`);
      return launch(i);
    },
    async add() {
      const i = up.length;
      dirs.push(tempDir(`ragd-replica${i}-`));
      past.push("");
      up.push(null);
      await launch(i);
      return i;
    },
    async stop() {
      for (const i of live()) await set.kill(i);
      await stopShared();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  return set;
}

function roundRobin(live: () => number[], at: (i: number) => RunningBinary): RoundRobin {
  const jar: Jar = {};
  let turn = 0;
  return {
    jar,
    async http(path, init = {}) {
      const ids = live();
      if (ids.length === 0) throw new Error("no replica is up");
      const replica = ids[turn++ % ids.length]!;
      const keyed = new Headers(init.headers).has("authorization");
      const reply = await at(replica).http(path, { ...init, jar: init.jar ?? (keyed ? undefined : jar) });
      return { ...reply, replica };
    },
  };
}

/**
 * The sum of a /metrics series over the label sets that hold every `labels` pair,
 * e.g. `metricSum(text, "ragd_ingest_sources_total", { outcome: "ready" })`; 0 when absent.
 */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const set = m[2] ?? "";
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

/** What the database and the bucket hold for one pipeline, read straight from each. */
export interface StoredPipeline {
  /** Its tasks still queued or processing. */
  pending: number;
  docs: { id: string; status: string; chunkCount: number }[];
  /** Its LanceDB tables, and the one of its active generation. */
  tables: string[];
  activeTable: string;
  /** Rows of the active table by document id, and the ids found more than once. */
  rowsPerDoc: Map<string, number>;
  rows: number;
  duplicates: { count: number; sample: string[] };
}

/** Reads a pipeline's rows in PostgreSQL and its tables in the bucket, as the replicas left them. */
export async function readStores(set: Replicas, pipelineId: string): Promise<StoredPipeline> {
  const sql = new SQL(set.databaseUrl, { max: 1 });
  let docs: StoredPipeline["docs"];
  let generation: number;
  let pending: number;
  try {
    docs = await sql`SELECT id, status, chunk_count AS "chunkCount" FROM documents WHERE collection_id = ${pipelineId}`;
    [{ active_generation: generation }] = await sql`SELECT active_generation FROM collections WHERE id = ${pipelineId}`;
    [{ n: pending }] = await sql`SELECT count(*)::int AS n FROM tasks
      WHERE collection_id = ${pipelineId} AND status IN ('queued', 'processing')`;
  } finally {
    await sql.close();
  }
  const conn = await openLance(set.storage);
  try {
    const prefix = tableNameOf(pipelineId, 0).slice(0, -1);
    const tables = (await conn.tableNames()).filter((t) => t.startsWith(prefix));
    const activeTable = tableNameOf(pipelineId, generation);
    const table = await conn.openTable(activeTable);
    const rows = await table.query().select(["id", "document_id"]).toArray();
    table.close();
    const rowsPerDoc = new Map<string, number>();
    for (const r of rows) rowsPerDoc.set(String(r.document_id), (rowsPerDoc.get(String(r.document_id)) ?? 0) + 1);
    const ids = rows.map((r) => String(r.id));
    return { pending, docs, tables, activeTable, rowsPerDoc, rows: rows.length, duplicates: duplicates(ids) };
  } finally {
    conn.close();
  }
}
