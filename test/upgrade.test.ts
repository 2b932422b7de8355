/**
 * An upgrade as an operator makes it: the data directory ragd 0.1.0 wrote
 * (test/fixtures/upgrade-0.1.0.tar.gz, made by scripts/make-upgrade-fixture.ts with the
 * 0.1.0 executable) is opened by the compiled binary of this tree. Its migrations run; every
 * query recorded from 0.1.0 answers the same results in the same order with the same scores;
 * nothing is queued or embedded again; keys, the webhook, the evaluation set and the OCR'd
 * picture are all there; the pipelines keep `language: "legacy"`. A directory from a newer
 * ragd is refused: test/newer-data-binary.test.ts.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../src/db/migrations/index";
import type { RecordedFixture, RecordedSource } from "../scripts/upgrade-fixture-corpus";
import { tempDir } from "./support/app";
import { type RunningBinary, ensureBinary, startBinary } from "./support/binary";
import { type DataDirState, readDataDir } from "./support/data-dir-state";

/** How far a score may move: the arithmetic is the same, so only float noise. */
const SCORE_TOLERANCE = 1e-6;
const fixtures = join(import.meta.dir, "fixtures");
const recorded: RecordedFixture = await Bun.file(join(fixtures, "upgrade-0.1.0.answers.json")).json();
const { glove, builtin } = recorded.pipelines;
let root: string;
let dataDir: string;
let before: DataDirState;
let server: RunningBinary;
const jar: { cookie?: string } = {};

beforeAll(async () => {
  await ensureBinary();
  root = tempDir("ragd-upgrade-");
  dataDir = join(root, "data");
  const tar = Bun.spawnSync([
    "sh",
    "-c",
    'mkdir -p "$1" && tar -xzf "$2" -C "$1"',
    "sh",
    dataDir,
    join(fixtures, "upgrade-0.1.0.tar.gz"),
  ]);
  if (tar.exitCode !== 0) throw new Error(tar.stderr.toString());
  before = await readDataDir(dataDir);
  server = await startBinary(dataDir, {}, tempDir("ragd-cwd-"), 60_000);
  const login = await server.http("/api/auth/login", { method: "POST", json: recorded.account, jar });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
}, 600_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  if (root) rmSync(root, { recursive: true, force: true });
});

const query = (key: string, json: object) =>
  server.http("/api/rag/query", { method: "POST", json, headers: { authorization: `Bearer ${key}` } });

describe("a data directory written by ragd 0.1.0, opened by this build", () => {
  test("the migrations since 0.1.0 run at start, and the server is ready", async () => {
    expect(before.migrations).toHaveLength(13);
    expect(before.migrations.at(-1)).toBe("0012_source_refresh");
    expect((await server.http("/readyz")).status).toBe(200);
    const db = new Database(join(dataDir, "ragd.db"), { readonly: true });
    const tags = db.query("SELECT tag FROM _migrations ORDER BY tag").all() as { tag: string }[];
    db.close();
    expect(tags.map((t) => t.tag)).toEqual(migrations.map((m) => m.tag));
  });

  test('its pipelines keep their models and say language "legacy"', async () => {
    for (const [id, model] of [
      [glove, "builtin-glove"],
      [builtin, "builtin"],
    ] as const) {
      const p = (await server.http(`/api/rag/pipelines/${id}`, { jar })).body;
      expect(p).toMatchObject({ embeddingModel: model, language: "legacy", status: "ready" });
      const chunks = recorded.sources[id]!.reduce((n, s) => n + s.chunkCount, 0);
      expect(p.chunkCount).toBe(chunks);
    }
  });

  test("every recorded query answers as 0.1.0 did: the same results in order, the same scores", async () => {
    const differ: string[] = [];
    for (const a of recorded.answers) {
      const key = recorded.keys[a.pipeline]!.query;
      const json = {
        query: a.query,
        mode: a.mode,
        topK: 8,
        ...("filter" in a ? { filter: { metadata: a.filter } } : {}),
      };
      const r = await query(key, json);
      expect(r.status).toBe(200);
      const got: [string, number][] = r.body.results.map((x: { score: number; metadata: Record<string, unknown> }) => [
        `${x.metadata.sourceId}#${x.metadata.chunkIndex}`,
        x.score,
      ]);
      const same =
        got.length === a.results.length &&
        got.every(([id, score], i) => id === a.results[i]![0] && Math.abs(score - a.results[i]![1]) <= SCORE_TOLERANCE);
      if (!same)
        differ.push(
          `${a.pipeline === glove ? "builtin-glove" : "builtin"} ${a.mode} "${a.query}": 0.1.0 ${JSON.stringify(a.results)}, now ${JSON.stringify(got)}`,
        );
    }
    expect(differ).toEqual([]);
    expect(recorded.answers.length).toBe(78);
  });

  test("every source keeps its status, chunks, metadata, OCR and indexing time", async () => {
    for (const id of [glove, builtin]) {
      const now = (await server.http(`/api/rag/pipelines/${id}/sources?pageSize=100`, { jar })).body.data;
      const kept = now.map(
        ({ id, name, externalId, metadata, status, chunkCount, indexedAt, ocr }: RecordedSource) => ({
          ...{ id, name, externalId, metadata, status, chunkCount, indexedAt, ocr },
        }),
      );
      expect(kept).toEqual(recorded.sources[id]);
    }
  });

  test("the OCR'd picture's text is searchable and readable", async () => {
    const r = await query(recorded.keys[glove]!.query, { query: recorded.ocrLine, mode: "keyword", topK: 3 });
    expect(r.body.results[0].metadata.sourceId).toBe(recorded.ocrSourceId);
    expect(r.body.results[0].content).toContain("turbine");
    const text = await server.http(`/api/rag/pipelines/${glove}/sources/${recorded.ocrSourceId}/text`, { jar });
    expect(text.status).toBe(200);
    expect(JSON.stringify(text.body)).toContain("spare turbine blades");
  });

  test("its keys still authenticate, each with its own scopes; the revoked one does not", async () => {
    const keys = recorded.keys[builtin]!;
    const ask = (key: string) => query(key, { query: "leave" });
    const list = (key: string) => server.http("/api/rag/documents", { headers: { authorization: `Bearer ${key}` } });
    expect((await ask(keys.query)).status).toBe(200);
    expect((await list(keys.query)).status).toBe(403);
    expect((await ask(keys.ingest)).status).toBe(403);
    expect((await list(keys.ingest)).status).toBe(200);
    expect((await ask(keys.both)).status).toBe(200);
    expect((await list(keys.both)).status).toBe(200);
    expect((await ask(keys.revoked)).status).toBe(401);
    const docs = (await list(recorded.keys[glove]!.ingest)).body;
    expect(JSON.stringify(docs)).toContain("facilities/parking");
  });

  test("the webhook and the evaluation set are there, and the set scores as it did", async () => {
    const hooks = (await server.http(`/api/rag/pipelines/${glove}/webhooks`, { jar })).body;
    expect(hooks).toEqual([expect.objectContaining(recorded.webhook)]);
    const set = (await server.http(`/api/rag/pipelines/${glove}/evals/${recorded.evalSet.id}`, { jar })).body;
    expect(set).toMatchObject({ name: recorded.evalSet.name, queryCount: 3 });
    const run = await server.http(`/api/rag/pipelines/${glove}/evals/${recorded.evalSet.id}/run`, {
      method: "POST",
      json: {},
      jar,
    });
    expect(run.status).toBe(200);
    expect(run.body.result.overall).toEqual(recorded.evalSet.overall);
  });

  test("nothing was queued or embedded again: tasks, chunks and vectors are as 0.1.0 left them", async () => {
    const metrics = (await server.http("/metrics")).body as string;
    const ingested = metrics.split("\n").filter((l) => /^ragd_ingest_sources_total\{.*\} [1-9]/.test(l));
    expect(ingested).toEqual([]);
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    const after = await readDataDir(dataDir);
    expect(after.tasks).toEqual(before.tasks);
    expect(Object.keys(after.chunks).sort()).toEqual(Object.keys(before.chunks).sort());
    for (const [table, rows] of Object.entries(before.chunks)) expect(after.chunks[table]).toEqual(rows);
    const rows = Object.values(before.chunks).reduce((n, r) => n + Object.keys(r).length, 0);
    expect(rows).toBe(
      Object.values(recorded.sources).reduce((n, list) => n + list.reduce((m, s) => m + s.chunkCount, 0), 0),
    );
  });
});
