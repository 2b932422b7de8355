/**
 * Makes the data directory that test/upgrade.test.ts opens with the current build:
 * test/fixtures/upgrade-0.1.0.tar.gz, written by ragd 0.1.0 (commit c72fc62) through its
 * HTTP API, and test/fixtures/upgrade-0.1.0.answers.json, what 0.1.0 answered then (and the
 * ids and keys the test needs). The corpus and the queries are scripts/upgrade-fixture-corpus.ts.
 *
 * It must be run with the 0.1.0 executable, built from that commit's own tree:
 *
 *   git worktree add ../ragd-0.1.0 c72fc62
 *   (cd ../ragd-0.1.0 && npm install && bun scripts/build.ts)
 *   bun scripts/make-upgrade-fixture.ts --binary ../ragd-0.1.0/dist/ragd
 *   git worktree remove --force ../ragd-0.1.0
 *
 * Needs Chromium for the OCR picture (CHROMIUM, default /usr/bin/chromium). Running it again
 * makes a new directory (new ids, keys and times), so commit the two files together.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { type OldServer, startOld, stopOld } from "./upgrade-fixture-server";
import {
  FILTERED,
  LONG_TEXT,
  MARKDOWN,
  MODES,
  OCR_LINE,
  QUERIES,
  type RecordedAnswer,
  type RecordedFixture,
  type RecordedSource,
  TEXTS,
} from "./upgrade-fixture-corpus";

const root = join(import.meta.dir, "..");
const fixtures = join(root, "test", "fixtures");
const { values } = parseArgs({ options: { binary: { type: "string" } } });
if (!values.binary) throw new Error("usage: bun scripts/make-upgrade-fixture.ts --binary <ragd 0.1.0 executable>");

/** The picture OCR reads: OCR_LINE drawn by a browser's canvas, grey on white, as a PNG. */
async function ocrPicture(): Promise<Uint8Array> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
  const page = await browser.newPage();
  const bytes = await page.evaluate(async (line) => {
    const c = document.createElement("canvas");
    c.width = 760;
    c.height = 80;
    const g = c.getContext("2d")!;
    g.fillStyle = "#fff";
    g.fillRect(0, 0, c.width, c.height);
    g.fillStyle = "#000";
    g.font = "32px serif";
    g.fillText(line, 16, 52);
    const blob: Blob = await new Promise((r) => c.toBlob((b) => r(b!), "image/png"));
    return Array.from(new Uint8Array(await blob.arrayBuffer()));
  }, OCR_LINE);
  await browser.close();
  return new Uint8Array(bytes);
}

/** Adds a file source and uploads its bytes; the source id. */
async function upload(s: OldServer, pipeline: string, fileName: string, bytes: Uint8Array, metadata = {}) {
  const created = await s.http(`/api/rag/pipelines/${pipeline}/sources`, {
    method: "POST",
    json: { type: "file", fileName, fileSize: bytes.byteLength, metadata },
  });
  const put = await fetch(created.body.uploadUrl, { method: "PUT", body: bytes as Uint8Array<ArrayBuffer> });
  if (!put.ok) throw new Error(`upload of ${fileName}: ${put.status} ${await put.text()}`);
  return created.body.id as string;
}

/** Waits until every source of `pipeline` is ready (a failed one stops the script). */
async function settle(s: OldServer, pipeline: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const all = (await s.http(`/api/rag/pipelines/${pipeline}/sources?pageSize=100`)).body.data as {
      name: string;
      status: string;
      error: string | null;
    }[];
    const failed = all.find((x) => x.status === "failed");
    if (failed) throw new Error(`source ${failed.name} failed: ${failed.error}`);
    if (all.every((x) => x.status === "ready")) return;
    await Bun.sleep(250);
  }
  throw new Error(`pipeline ${pipeline} did not settle in 150 s`);
}

/** The two pipelines and their sources; ids by name. */
async function writePipelines(s: OldServer) {
  const make = async (json: object) => (await s.http("/api/rag/pipelines", { method: "POST", json })).body.id as string;
  const glove = await make({ name: "Handbook (glove)", embeddingModel: "builtin-glove" });
  const builtin = await make({
    name: "Handbook (builtin)",
    embeddingModel: "builtin",
    chunkingStrategy: "sentence",
    chunkSize: 200,
    chunkOverlap: 40,
  });
  const sources: Record<string, string> = {};
  for (const pipeline of [glove, builtin]) {
    for (const [name, externalId, content, metadata] of TEXTS) {
      const json = { type: "text", name, externalId, content, metadata };
      const r = await s.http(`/api/rag/pipelines/${pipeline}/sources`, { method: "POST", json });
      sources[`${pipeline}:${externalId}`] = r.body.id;
    }
    const json = { type: "text", name: "Lighthouse", content: LONG_TEXT, metadata: { team: "history" } };
    sources[`${pipeline}:lighthouse`] = (
      await s.http(`/api/rag/pipelines/${pipeline}/sources`, { method: "POST", json })
    ).body.id;
    sources[`${pipeline}:travel.md`] = await upload(s, pipeline, "travel.md", new TextEncoder().encode(MARKDOWN), {
      team: "travel",
    });
  }
  sources[`${glove}:turbines.png`] = await upload(s, glove, "turbines.png", await ocrPicture(), { team: "ops" });
  for (const p of [glove, builtin]) await settle(s, p);
  return { glove, builtin, sources };
}

/** Keys of each scope, one expiring far ahead, one revoked; the full keys by name. */
async function writeKeys(s: OldServer, pipeline: string): Promise<RecordedFixture["keys"][string]> {
  const keys: Record<string, string> = {};
  const add = async (name: string, scopes: string[], expiresAt?: string) => {
    const r = await s.http(`/api/rag/pipelines/${pipeline}/keys`, {
      method: "POST",
      json: { name, scopes, expiresAt },
    });
    if (r.status !== 201) throw new Error(`key ${name}: ${JSON.stringify(r.body)}`);
    keys[name] = r.body.key;
    return r.body.id as string;
  };
  await add("query", ["query"]);
  await add("ingest", ["ingest"]);
  await add("both", ["query", "ingest"], "2099-01-01T00:00:00Z");
  const revoked = await add("revoked", ["query"]);
  await s.http(`/api/rag/pipelines/${pipeline}/keys/${revoked}`, { method: "DELETE" });
  return keys as RecordedFixture["keys"][string];
}

/** A document through the documents API, with the ingest key. */
async function writeDocument(s: OldServer, pipeline: string, key: string) {
  const json = {
    type: "text",
    name: "Parking",
    content: "Staff park in the lower garage; the upper deck is kept for visitors and deliveries.",
    metadata: { team: "facilities", year: 2026 },
  };
  const r = await s.http("/api/rag/documents/facilities%2Fparking", { method: "PUT", json, key });
  if (r.status !== 201) throw new Error(`documents PUT: ${JSON.stringify(r.body)}`);
  await settle(s, pipeline);
}

/** What each fixed query answers, per pipeline and mode: result ids (`sourceId#chunkIndex`) and scores. */
async function askAll(s: OldServer, keys: Record<string, string>) {
  const answers: RecordedAnswer[] = [];
  const ask = async (pipeline: string, query: string, mode: string, filter?: Record<string, unknown>) => {
    const json = { query, mode, topK: 8, ...(filter ? { filter: { metadata: filter } } : {}) };
    const r = await s.http("/api/rag/query", { method: "POST", json, key: keys[pipeline] });
    if (r.status !== 200) throw new Error(`query ${query}: ${JSON.stringify(r.body)}`);
    const results = r.body.results.map((x: { score: number; metadata: { sourceId: string; chunkIndex: number } }) => [
      `${x.metadata.sourceId}#${x.metadata.chunkIndex}`,
      x.score,
    ]);
    answers.push({ pipeline, query, mode, ...(filter ? { filter } : {}), results });
  };
  for (const pipeline of Object.keys(keys))
    for (const mode of MODES) {
      for (const q of QUERIES) await ask(pipeline, q, mode);
      for (const [q, f] of FILTERED) await ask(pipeline, q, mode, f);
    }
  return answers;
}

/** An evaluation set of the glove pipeline, run once; its id, name and figures. */
async function writeEvalSet(s: OldServer, glove: string, sources: Record<string, string>) {
  const expect = (query: string, source: string) => ({ query, expectedSourceIds: [sources[`${glove}:${source}`]] });
  const set = await s.http(`/api/rag/pipelines/${glove}/evals`, {
    method: "POST",
    json: {
      name: "Handbook checks",
      queries: [
        expect("paid leave days", "hr/leave"),
        expect("spare turbine blades", "turbines.png"),
        expect("lighthouse museum", "lighthouse"),
      ],
    },
  });
  const run = await s.http(`/api/rag/pipelines/${glove}/evals/${set.body.id}/run`, { method: "POST", json: {} });
  return { id: set.body.id, name: set.body.name, overall: run.body.result.overall };
}

/** The sources of a pipeline as recorded: what the upgrade must leave as it was. */
async function recordSources(s: OldServer, pipeline: string): Promise<RecordedSource[]> {
  const all = (await s.http(`/api/rag/pipelines/${pipeline}/sources?pageSize=100`)).body.data as RecordedSource[];
  return all.map(({ id, name, externalId, metadata, status, chunkCount, indexedAt, ocr }) => ({
    ...{ id, name, externalId, metadata, status, chunkCount, indexedAt, ocr },
  }));
}

/** Writes everything through the API, asks the queries; what the answers file records. */
async function writeAndAsk(s: OldServer): Promise<RecordedFixture> {
  const account = { email: "old@example.com", password: s.password };
  await s.http("/api/auth/signup", { method: "POST", json: account });
  const { glove, builtin, sources } = await writePipelines(s);
  const keys = { [glove]: await writeKeys(s, glove), [builtin]: await writeKeys(s, builtin) };
  await writeDocument(s, glove, keys[glove]!.ingest);
  const webhook = await s.addWebhook(glove);
  const evalSet = await writeEvalSet(s, glove, sources);
  const answers = await askAll(s, { [glove]: keys[glove]!.query, [builtin]: keys[builtin]!.query });
  return {
    madeBy: { version: "0.1.0", commit: "c72fc62" },
    madeAt: new Date().toISOString(),
    account,
    pipelines: { glove, builtin },
    sources: { [glove]: await recordSources(s, glove), [builtin]: await recordSources(s, builtin) },
    ocrSourceId: sources[`${glove}:turbines.png`]!,
    ocrLine: "spare turbine blades",
    keys,
    webhook: { id: webhook.id, url: webhook.url, events: webhook.events },
    evalSet,
    answers,
  };
}

async function main() {
  const dataDir = join(mkdtempSync(join(tmpdir(), "ragd-0.1.0-")), "data");
  const binary = resolve(values.binary!);
  const version = Bun.spawnSync([binary, "version"]).stdout.toString().trim().split("\n")[0]!;
  if (version !== "ragd 0.1.0") throw new Error(`the binary says "${version}", not ragd 0.1.0`);
  const s = await startOld(binary, dataDir);
  try {
    const recorded = await writeAndAsk(s);
    await stopOld(s);
    pack(dataDir);
    writeFileSync(join(fixtures, "upgrade-0.1.0.answers.json"), `${JSON.stringify(recorded, null, 1)}\n`);
    console.log(`${recorded.answers.length} answers recorded`);
  } finally {
    s.proc.kill("SIGKILL");
    s.receiver.stop(true);
    rmSync(join(dataDir, ".."), { recursive: true, force: true });
  }
}

/**
 * Packs the stopped data directory into the fixture, without its lock, log and temporary
 * files, and without the database's WAL, which a clean stop leaves empty (checked).
 */
function pack(dataDir: string): void {
  const wal = join(dataDir, "ragd.db-wal");
  if (existsSync(wal) && statSync(wal).size > 0)
    throw new Error("ragd.db-wal is not empty: the server did not stop cleanly");
  const out = join(fixtures, "upgrade-0.1.0.tar.gz");
  const tar = Bun.spawnSync(
    ["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "-czf", out]
      .concat(
        ["./logs", "./tmp", "./files/.tmp", "./ragd.lock", "./ragd.db-shm", "./ragd.db-wal", "*.log"].map(
          (x) => `--exclude=${x}`,
        ),
      )
      .concat(["-C", dataDir, "."]),
    { stderr: "pipe" },
  );
  if (tar.exitCode !== 0) throw new Error(`tar: ${tar.stderr}`);
  console.log(`${out}: ${(statSync(out).size / 1024).toFixed(0)} KB`);
}

await main();
