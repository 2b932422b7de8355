/**
 * `ragd move`, as users run it. First the row copier alone (db/copy.ts): booleans, JSON,
 * 64-bit and generated ids go from SQLite to PostgreSQL and back unchanged, and the next
 * generated id after a move is one never used before. Then the compiled binary: a data
 * directory with an account, a pipeline, a key, a text source and an uploaded file larger
 * than one upload part, moved onto a throwaway PostgreSQL database and a Ceph RGW bucket,
 * left as it was, served from there with the same password and key giving the same
 * chunks, and moved back into a new data directory with the same outcome. A move while a
 * server runs, or onto a database that holds ragd data, is refused with exit code 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asc, eq, getTableColumns } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { ObjectStorage } from "../src/config-storage";
import { type Db, openStore } from "../src/db/client";
import { copyOrder, copyRows } from "../src/db/copy";
import { tables } from "../src/db/dialect";
import { openPgStore } from "../src/db/pg-store";
import type { Store } from "../src/db/store";
import { openLance } from "../src/vectors/connection";
import { tempDir } from "./support/app";
import { ensureBinary, runCli, type RunningBinary, signUp, startBinary } from "./support/binary";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";
import { waitFor } from "./support/wait";

if (!havePostgres) console.log(`move tests skipped: ${NO_POSTGRES}`);
else if (!haveRgw) console.log(`move tests of the binary skipped: ${NO_RGW}`);

const NOW = "2026-01-02T03:04:05.000Z";
/** Past 2^31 (PostgreSQL's integer) and past what the counters below reach. */
const WIDE = 3_000_000_000;

/** Every row of every table, by primary key, as `db` reads them. */
async function everything(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const { key, name } of copyOrder()) {
    const table = tables(db)[key] as unknown as SQLiteTable;
    const pk = Object.values(getTableColumns(table)).find((c) => c.primary)!;
    out[name] = await db.select().from(table).orderBy(asc(pk));
  }
  return out;
}

/** A new event's generated id. */
const newEvent = (store: Store) =>
  store.atomically(async (tx) => {
    const [row] = await tx
      .insert(tables(tx).events)
      .values({ collectionId: "c1", type: "source.ready", createdAt: NOW })
      .returning({ id: tables(tx).events.id });
    return row!.id;
  });

/** Rows in every shape the twins keep differently: booleans, JSON, wide sizes and ids, a long text. */
function seed(store: Store, content: string) {
  return store.atomically(async (tx) => {
    const t = tables(tx);
    await tx.insert(t.users).values([
      { id: "u1", email: "a@example.com", passwordHash: "h", createdAt: NOW, isAdmin: true },
      { id: "u2", email: "b@example.com", passwordHash: "h", createdAt: NOW, mustChangePassword: true },
    ]);
    await tx.insert(t.collections).values({
      id: "c1",
      userId: "u1",
      kind: "pipeline",
      name: "P",
      chunkingStrategy: "recursive",
      chunkSize: 512,
      chunkOverlap: 50,
      embeddingModel: "builtin-glove",
      vectorProvider: "lancedb",
      retrievalTopK: 5,
      hybridAlpha: 0.25,
      ocrLanguages: ["eng", "deu"],
      createdAt: NOW,
      updatedAt: NOW,
    });
    await tx.insert(t.documents).values({
      id: "d1",
      collectionId: "c1",
      type: "file",
      name: "big.bin",
      fileSize: 5_000_000_000,
      status: "ready",
      metadata: '{"team":"port"}',
      createdAt: NOW,
      updatedAt: NOW,
    });
    await tx.insert(t.documentTexts).values({ documentId: "d1", content });
    await tx.insert(t.events).values([
      { id: 5, collectionId: "c1", type: "source.queued", createdAt: NOW },
      { id: WIDE, collectionId: "c1", type: "source.ready", createdAt: NOW },
      { id: WIDE + 10, collectionId: "c1", type: "source.ready", createdAt: NOW },
    ]);
    await tx.insert(t.auditLog).values({ at: NOW, actor: "cli (test)", action: "user.create" });
  });
}

describe.skipIf(!havePostgres)("the row copier between SQLite and PostgreSQL", () => {
  let pg: TestPostgres;
  const dirs = [tempDir("ragd-copy-a-"), tempDir("ragd-copy-b-")];

  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    await pg?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test("copies every table's rows unchanged both ways, and carries the counters of generated ids", async () => {
    const lite = openStore(dirs[0]!);
    await seed(lite, "x".repeat(100_000));
    // The newest event is gone, but its id was handed out: it must not come back.
    await lite.atomically(async (tx) => {
      await tx.delete(tables(tx).events).where(eq(tables(tx).events.id, WIDE + 10));
    });
    const url = await pg.createDatabase("ragd_copy");
    const shared = await openPgStore(url);
    const back = openStore(dirs[1]!);
    try {
      const copied = await copyRows(lite, shared);
      expect(copied.find((t) => t.name === "events")?.rows).toBe(2);
      expect(copied.find((t) => t.name === "users")?.rows).toBe(2);
      const original = await everything(lite.reader);
      expect(await everything(shared.reader)).toEqual(original);
      expect(await newEvent(shared)).toBe(WIDE + 11);

      await copyRows(shared, back);
      const onPg = await everything(shared.reader);
      expect(await everything(back.reader)).toEqual(onPg);
      expect(onPg.collections).toEqual(original.collections!);
      expect(await newEvent(back)).toBe(WIDE + 12);
    } finally {
      await Promise.all([lite.close(), shared.close(), back.close()]);
    }
  }, 60_000);
});

const PASSWORD = "correct horse battery";
const PREFIX = "moved";
/**
 * More than one part of a multipart upload (8 MiB): the file that proves the large-object
 * path. Padded with spaces, which chunk into the same two chunks as blank lines did in a
 * tenth of the time (0.24 s against 2.8 s for 9 MiB of newlines).
 */
const FILE_TEXT = `The lighthouse keeper logs the tide tables every morning.\n${" ".repeat(9 * 1024 * 1024)}\nStorm shutters close when the barometer drops.\n`;

/** A hash of every file under a directory's lance/ and files/, by path: equal when nothing changed. */
function treeHash(dir: string): string {
  const h = createHash("sha256");
  for (const area of ["lance", "files"]) {
    const root = join(dir, area);
    if (!existsSync(root)) continue;
    for (const rel of (readdirSync(root, { recursive: true }) as string[]).sort()) {
      const path = join(root, rel);
      if (!statSync(path).isFile()) continue;
      h.update(`${area}/${rel}\0`).update(readFileSync(path));
    }
  }
  return h.digest("hex");
}

describe.skipIf(!havePostgres || !haveRgw)("ragd move onto PostgreSQL and a bucket, and back", () => {
  let pg: TestPostgres;
  let rgw: TestRgw;
  let store: ObjectStorage;
  let sharedEnv: Record<string, string> = {};
  let server: RunningBinary | null = null;
  const dirs = {
    failing: tempDir("ragd-move-failing-"),
    source: tempDir("ragd-move-src-"),
    shared: tempDir("ragd-move-shared-"),
    back: tempDir("ragd-move-back-"),
  };
  const made = { pipelineId: "", key: "", fileId: "", textId: "" };
  const QUERIES = ["lighthouse tide tables", "orchard apple trees"];
  let before: unknown[][] = [];
  let afterShared: unknown[][] = [];

  beforeAll(async () => {
    await ensureBinary();
    [pg, rgw] = await Promise.all([startPostgres(), startRgw()]);
    store = { ...rgw.storage, prefix: PREFIX };
    sharedEnv = {
      RAGD_DATABASE_URL: await pg.createDatabase("ragd_move"),
      RAGD_STORAGE_URL: `s3://${store.bucket}/${PREFIX}`,
      RAGD_S3_ENDPOINT: store.endpoint!,
      RAGD_S3_ACCESS_KEY_ID: store.accessKeyId!,
      RAGD_S3_SECRET_ACCESS_KEY: store.secretAccessKey!,
    };
  }, 300_000);

  afterAll(async () => {
    server?.proc.kill("SIGKILL");
    await Promise.all([pg?.stop(), rgw?.stop()]);
    for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
  }, 60_000);

  const s3 = () =>
    new S3Client({
      ...store,
      endpoint: store.endpoint!,
      accessKeyId: store.accessKeyId!,
      secretAccessKey: store.secretAccessKey!,
    });
  const stop = async () => {
    server!.proc.kill("SIGTERM");
    await server!.proc.exited;
    server = null;
  };
  const query = async (text: string) => {
    const r = await server!.http("/api/rag/query", {
      method: "POST",
      json: { query: text, topK: 5 },
      headers: { authorization: `Bearer ${made.key}` },
    });
    expect(r.status).toBe(200);
    return r.body.results as unknown[];
  };
  const allQueries = async () => Promise.all(QUERIES.map(query));
  const signIn = async () => {
    const r = await server!.http("/api/auth/login", {
      method: "POST",
      json: { email: "m@example.com", password: PASSWORD },
    });
    expect(r.status).toBe(200);
  };
  const readySources = (jar: { cookie?: string }) =>
    waitFor(
      "every source ready",
      async () => {
        const list = (await server!.http(`/api/rag/pipelines/${made.pipelineId}/sources?pageSize=100`, { jar })).body;
        return list.data.length > 0 && list.data.every((s: { status: string }) => s.status === "ready");
      },
      120_000,
      250,
    );

  test("a data directory with an account, a pipeline, a key, a text source and an uploaded file", async () => {
    server = await startBinary(dirs.source, { RAGD_WORKERS: "1" });
    const jar: { cookie?: string } = {};
    expect(await signUp(server, "m@example.com", jar)).toBe(201);
    made.pipelineId = (
      await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Coast" }, jar })
    ).body.id;
    const sources = `/api/rag/pipelines/${made.pipelineId}/sources`;
    made.key = (
      await server.http(`/api/rag/pipelines/${made.pipelineId}/keys`, { method: "POST", json: { name: "app" }, jar })
    ).body.key;
    const content = "Apple trees in the orchard bloom in April; pears follow in May.";
    made.textId = (
      await server.http(sources, { method: "POST", json: { type: "text", name: "orchard", content }, jar })
    ).body.id;
    const bytes = new TextEncoder().encode(FILE_TEXT);
    const file = await server.http(sources, {
      method: "POST",
      json: { type: "file", fileName: "keeper.txt", fileSize: bytes.length },
      jar,
    });
    expect((await fetch(file.body.uploadUrl, { method: "PUT", body: bytes })).status).toBe(200);
    made.fileId = file.body.id;
    await readySources(jar);
    before = await allQueries();
    expect(JSON.stringify(before[0])).toContain("lighthouse keeper");
    expect(JSON.stringify(before[1])).toContain("orchard");

    const refused = runCli(["move", "--to-shared", "--data-dir", dirs.source], sharedEnv);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is in use by ragd process");
    await stop();
  }, 180_000);

  test("moves onto the database and the bucket, leaving the data directory as it was", async () => {
    const unchanged = treeHash(dirs.source);
    const moved = runCli(["move", "--to-shared", "--data-dir", dirs.source], sharedEnv);
    expect(moved.stderr).toBe("");
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/users\s+1 rows/);
    expect(moved.stdout).toMatch(/documents\s+2 rows/);
    expect(moved.stdout).toContain("vector tables: 1, uploaded files: 1;");
    expect(treeHash(dirs.source)).toBe(unchanged);

    const kept = readFileSync(join(dirs.source, "files", made.pipelineId, made.fileId));
    const object = await s3().file(`${PREFIX}/files/${made.pipelineId}/${made.fileId}`).bytes();
    expect(object.length).toBe(kept.length);
    expect(Buffer.from(object).equals(kept)).toBe(true);
    // A byte copy of a LanceDB table is the table: it opens at its new place with its rows.
    const lance = await openLance(store);
    const names = await lance.tableNames();
    expect(names).toHaveLength(1);
    const local = await openLance(dirs.source);
    const rows = await (await lance.openTable(names[0]!)).countRows();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBe(await (await local.openTable(names[0]!)).countRows());
    lance.close();
    local.close();
  }, 120_000);

  test("serves from there: the same password, the same key, the same chunks; new writes get new ids", async () => {
    server = await startBinary(dirs.shared, { ...sharedEnv, RAGD_WORKERS: "1" });
    await signIn();
    expect(await allQueries()).toEqual(before);
    // Events have generated ids: a new source's events get ids after the copied ones.
    const jar: { cookie?: string } = {};
    const login = await server.http("/api/auth/login", {
      method: "POST",
      json: { email: "m@example.com", password: PASSWORD },
      jar,
    });
    expect(login.status).toBe(200);
    const added = await server.http(`/api/rag/pipelines/${made.pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", name: "ferry", content: "The ferry to the island leaves every hour from pier four." },
      jar,
    });
    expect(added.status).toBe(201);
    await readySources(jar);
    afterShared = await allQueries();
    expect(JSON.stringify(await query("ferry to the island"))).toContain("pier four");
    await stop();
  }, 120_000);

  test("a second move onto the database, which now holds ragd data, is refused", () => {
    const again = runCli(["move", "--to-shared", "--data-dir", dirs.source], sharedEnv);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already holds ragd data (1 accounts, 1 pipelines");
  });

  test("moves back into a new data directory, which then serves the same chunks", async () => {
    const moved = runCli(["move", "--to-data-dir", "--data-dir", dirs.back], sharedEnv);
    expect(moved.stderr).toBe("");
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/documents\s+3 rows/);
    const copied = readFileSync(join(dirs.back, "files", made.pipelineId, made.fileId));
    expect(copied.equals(readFileSync(join(dirs.source, "files", made.pipelineId, made.fileId)))).toBe(true);
    server = await startBinary(dirs.back, { RAGD_WORKERS: "1" });
    await signIn();
    expect(await allQueries()).toEqual(afterShared);
    expect(JSON.stringify(await query("ferry to the island"))).toContain("pier four");
    await stop();
  }, 120_000);

  test("a move that fails leaves its target empty, and runs again once the cause is gone", async () => {
    // PostgreSQL's text refuses NUL, which SQLite keeps: the rows fail after the objects are copied.
    const local = openStore(dirs.failing);
    await seed(local, "before\u0000after");
    await local.close();
    mkdirSync(join(dirs.failing, "lance", "c_x_g1.lance", "data"), { recursive: true });
    writeFileSync(join(dirs.failing, "lance", "c_x_g1.lance", "data", "part.lance"), "vectors");
    mkdirSync(join(dirs.failing, "files", "c1"), { recursive: true });
    writeFileSync(join(dirs.failing, "files", "c1", "d1"), "file bytes");
    mkdirSync(join(dirs.failing, "files", ".tmp"), { recursive: true });
    writeFileSync(join(dirs.failing, "files", ".tmp", "upload-1"), "half an upload");
    const env = {
      ...sharedEnv,
      RAGD_DATABASE_URL: await pg.createDatabase("ragd_move_failing"),
      RAGD_STORAGE_URL: `s3://${store.bucket}/failing`,
    };
    const keys = async () => ((await s3().list({ prefix: "failing/" })).contents ?? []).map((o) => o.key).sort();

    const failed = runCli(["move", "--to-shared", "--data-dir", dirs.failing], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("copying the rows of document_texts");
    expect(failed.stderr).not.toContain("before");
    expect(await keys()).toEqual([]);
    const fixed = openStore(dirs.failing);
    await fixed.atomically((tx) => tx.update(tables(tx).documentTexts).set({ content: "before after" }));
    await fixed.close();
    const moved = runCli(["move", "--to-shared", "--data-dir", dirs.failing], env);
    expect(moved.stderr).toBe("");
    expect(moved.code).toBe(0);
    // Uploads in progress (files/.tmp) stay behind.
    expect(await keys()).toEqual(["failing/files/c1/d1", "failing/lance/c_x_g1.lance/data/part.lance"]);
  }, 60_000);
});
