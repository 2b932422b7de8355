/**
 * `ragd serve` with RAGD_STORAGE_URL, as users run it: the compiled binary on a real
 * S3-compatible store (Ceph RGW, test/support/rgw.ts). Its SQLite stays in the data
 * directory; its LanceDB tables and uploaded files go to the bucket, a file source's
 * client PUTs to the store itself and ragd notices, the documents API's file form keeps
 * no object a row does not name, what works on the data directory alone says so, and
 * /readyz names the store when it is gone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ObjectStorage } from "../src/config-storage";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary, signUp } from "./support/binary";
import { openRelay, type Relay } from "./support/relay";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";
import { waitFor } from "./support/wait";

if (!haveRgw) console.log(`object storage tests skipped: ${NO_RGW}`);

const PREFIX = "ragd";
const FILE_TEXT =
  "The lighthouse keeper logs the tide tables every morning. Storm shutters close when the barometer drops.\n";

describe.skipIf(!haveRgw)("ragd serve on object storage (Ceph RGW)", () => {
  let rgw: TestRgw;
  /** The server's way to the store, which the last test closes: the store may be the run's shared one. */
  let relay: Relay;
  let store: ObjectStorage;
  let s3: S3Client;
  let server: RunningBinary;
  const dataDir = tempDir("ragd-objserve-");
  const jar: { cookie?: string } = {};
  let pipelineId = "";
  let key = "";
  /** The file source of the first test, with the URL it was uploaded through. */
  let firstFile = { id: "", uploadUrl: "" };

  beforeAll(async () => {
    await ensureBinary();
    rgw = await startRgw();
    relay = await openRelay(rgw.storage.endpoint!);
    store = { ...rgw.storage, endpoint: relay.endpoint };
    s3 = new S3Client({
      bucket: store.bucket,
      region: store.region,
      endpoint: store.endpoint!,
      accessKeyId: store.accessKeyId!,
      secretAccessKey: store.secretAccessKey!,
    });
    server = await start();
  }, 300_000);

  const start = () =>
    startBinary(dataDir, {
      RAGD_STORAGE_URL: `s3://${store.bucket}/${PREFIX}`,
      RAGD_S3_ENDPOINT: store.endpoint!,
      RAGD_S3_ACCESS_KEY_ID: store.accessKeyId!,
      RAGD_S3_SECRET_ACCESS_KEY: store.secretAccessKey!,
      RAGD_WORKERS: "1",
    });

  afterAll(async () => {
    server?.proc.kill("SIGKILL");
    await relay?.close();
    await rgw?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  const keysUnder = async (prefix: string) => ((await s3.list({ prefix })).contents ?? []).map((o) => o.key);
  const source = async (id: string) =>
    (await server.http(`/api/rag/pipelines/${pipelineId}/sources/${id}`, { jar })).body;
  const query = (text: string) =>
    server.http("/api/rag/query", {
      method: "POST",
      json: { query: text, topK: 5 },
      headers: { authorization: `Bearer ${key}` },
    });

  test("is ready, naming the object store among its checks", async () => {
    const ready = await server.http("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toContainEqual({ name: "object storage", ok: true });
  });

  test("ingests a text source and a file uploaded straight to the store, without another call", async () => {
    expect(await signUp(server, "o@example.com", jar)).toBe(201);
    pipelineId = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Coast" }, jar })).body.id;
    key = (
      await server.http(`/api/rag/pipelines/${pipelineId}/keys`, {
        method: "POST",
        json: { name: "app", scopes: ["query", "ingest"] },
        jar,
      })
    ).body.key;
    const sources = `/api/rag/pipelines/${pipelineId}/sources`;
    const text = await server.http(sources, {
      method: "POST",
      json: {
        type: "text",
        name: "orchard",
        content: "Apple trees in the orchard bloom in April; pears follow in May.",
      },
      jar,
    });
    expect(text.status).toBe(201);
    const bytes = new TextEncoder().encode(FILE_TEXT);
    const file = await server.http(sources, {
      method: "POST",
      json: { type: "file", fileName: "keeper.txt", fileSize: bytes.length },
      jar,
    });
    expect(file.status).toBe(201);
    expect(file.body.status).toBe("awaiting_upload");
    // The URL is the store's own, bound to the declared size.
    expect(file.body.uploadUrl).toStartWith(`${store.endpoint}/${store.bucket}/${PREFIX}/uploads/${pipelineId}/`);
    const wrongSize = await fetch(file.body.uploadUrl, { method: "PUT", body: `${FILE_TEXT}!` });
    expect(wrongSize.status).toBe(403);
    const put = await fetch(file.body.uploadUrl, { method: "PUT", body: bytes });
    expect(put.status).toBe(200);
    // Only reads from here: ragd notices the upload by itself.
    for (const id of [text.body.id, file.body.id])
      await waitFor(`source ${id} ready`, async () => (await source(id)).status === "ready", 60_000, 250);
    expect((await source(file.body.id)).chunkCount).toBeGreaterThan(0);
    firstFile = { id: file.body.id, uploadUrl: file.body.uploadUrl };
    const hits = await query("lighthouse tide tables");
    expect(hits.status).toBe(200);
    expect(hits.body.results[0].content).toContain("lighthouse keeper");
    expect(hits.body.results[0].metadata.sourceId).toBe(file.body.id);
    const orchard = await query("orchard apple trees");
    expect(orchard.body.results.map((r: { metadata: { sourceId: string } }) => r.metadata.sourceId)).toContain(
      text.body.id,
    );
  }, 120_000);

  test("keeps the tables and files in the bucket, nothing under the data directory's lance or files", async () => {
    const tables = await keysUnder(`${PREFIX}/lance/`);
    expect(tables.some((k) => k.includes(pipelineId.replaceAll("-", "")))).toBe(true);
    expect((await keysUnder(`${PREFIX}/files/${pipelineId}/`)).length).toBe(1);
    // The client's upload was copied to the kept file and its staged object removed.
    expect(await keysUnder(`${PREFIX}/uploads/`)).toEqual([]);
    expect(existsSync(join(dataDir, "lance"))).toBe(false);
    expect(existsSync(join(dataDir, "files"))).toBe(false);
    expect(readdirSync(dataDir)).toContain("ragd.db");
  });

  const newFileSource = async (bytes: Uint8Array) => {
    const sources = `/api/rag/pipelines/${pipelineId}/sources`;
    const r = await server.http(sources, {
      method: "POST",
      json: { type: "file", fileName: "f.txt", fileSize: bytes.length },
      jar,
    });
    expect(r.status).toBe(201);
    return r.body as { id: string; uploadUrl: string };
  };

  test("a second PUT to a taken source's URL changes nothing ragd keeps, and its object goes", async () => {
    const kept = `${PREFIX}/files/${pipelineId}/${firstFile.id}`;
    const before = await source(firstFile.id);
    expect(before.status).toBe("ready");
    // Other bytes of the declared size: the signed Content-Length lets them through.
    const other = FILE_TEXT.replace("lighthouse", "LIGHTHOUSE");
    expect(other).not.toBe(FILE_TEXT);
    expect((await fetch(firstFile.uploadUrl, { method: "PUT", body: other })).status).toBe(200);
    await waitFor(
      "the second PUT removed",
      async () => (await keysUnder(`${PREFIX}/uploads/`)).length === 0,
      30_000,
      250,
    );
    expect(await s3.file(kept).text()).toBe(FILE_TEXT);
    const after = await source(firstFile.id);
    expect(after.status).toBe("ready");
    expect(after.chunkCount).toBe(before.chunkCount);
  }, 60_000);

  test("the same file uploaded again fails its source, saying so, and its object goes", async () => {
    const again = await newFileSource(new TextEncoder().encode(FILE_TEXT));
    expect((await fetch(again.uploadUrl, { method: "PUT", body: FILE_TEXT })).status).toBe(200);
    const failed = await waitFor(
      "the duplicate failed",
      async () => {
        const s = await source(again.id);
        return s.status === "failed" && s;
      },
      30_000,
      250,
    );
    expect(failed.error).toContain("the same file is already here");
    expect(await keysUnder(`${PREFIX}/files/${pipelineId}/${again.id}`)).toEqual([]);
    await waitFor(
      "its staged object removed",
      async () => (await keysUnder(`${PREFIX}/uploads/`)).length === 0,
      10_000,
      250,
    );
  }, 60_000);

  test("an upload that ends while ragd is stopped is taken after its restart; an object no row names goes", async () => {
    const text = "Ferry timetables change in winter; the last boat leaves at six.\n";
    const late = await newFileSource(new TextEncoder().encode(text));
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    expect((await fetch(late.uploadUrl, { method: "PUT", body: text })).status).toBe(200);
    // What a crash between storing a file and committing its row leaves: an object no row names.
    const stray = `${PREFIX}/files/${pipelineId}/${crypto.randomUUID()}`;
    await s3.write(stray, "left by a crash");
    // And an upload for a source that no longer exists.
    const strayUpload = `${PREFIX}/uploads/${pipelineId}/${crypto.randomUUID()}`;
    await s3.write(strayUpload, "for a source deleted meanwhile");
    server = await start();
    await waitFor("the late upload ready", async () => (await source(late.id)).status === "ready", 60_000, 250);
    const kept = await keysUnder(`${PREFIX}/files/${pipelineId}/`);
    expect(kept).not.toContain(stray);
    expect(kept).toContain(`${PREFIX}/files/${pipelineId}/${late.id}`);
    await waitFor(
      "the staging area emptied",
      async () => (await keysUnder(`${PREFIX}/uploads/`)).length === 0,
      10_000,
      250,
    );
  }, 120_000);

  test("the documents API's file form stores its file in the bucket; a replaced or refused one leaves no object", async () => {
    const files = `${PREFIX}/files/${pipelineId}/`;
    const before = new Set(await keysUnder(files));
    const added = async () => (await keysUnder(files)).filter((k) => !before.has(k));
    const put = (body: FormData | object) =>
      server.http("/api/rag/documents/tides", {
        method: "PUT",
        ...(body instanceof FormData ? { body } : { json: body }),
        headers: { authorization: `Bearer ${key}` },
      });
    const form = (text: string, name = "tides.txt") => {
      const f = new FormData();
      f.append("file", new Blob([text], { type: "text/plain" }), name);
      return f;
    };
    const first = await put(form("Spring tides come twice a month, with the new and the full moon.\n"));
    expect(first.status).toBe(201);
    const id = first.body.source.id;
    await waitFor("the document ready", async () => (await source(id)).status === "ready", 60_000, 250);
    expect((await query("spring tides full moon")).body.results[0].metadata.sourceId).toBe(id);
    const [stored] = await added();
    expect(stored).toBeDefined();
    // Another file: a new object, the former one gone once the commit names the new one.
    const second = await put(form("Neap tides follow the quarter moons and rise the least.\n"));
    expect(second.body.status).toBe("replaced");
    const [replaced, ...more] = await added();
    expect(more).toEqual([]);
    expect(replaced).not.toBe(stored);
    await waitFor("the new version ready", async () => (await source(id)).status === "ready", 60_000, 250);
    expect((await query("neap tides quarter moons")).body.results[0].metadata.sourceId).toBe(id);
    // The same file again: unchanged, and the copy it came as is not kept.
    const same = await put(form("Neap tides follow the quarter moons and rise the least.\n"));
    expect(same.body.status).toBe("unchanged");
    expect(await added()).toEqual([replaced]);
    // A form refused after its file arrived (bad metadata, after the file part): nothing stays.
    const bad = form("Slack water is the still moment between tides.\n");
    bad.append("metadata", "not json");
    expect((await put(bad)).status).toBe(400);
    expect(await added()).toEqual([replaced]);
    // Text instead of a file: the file's object goes.
    expect((await put({ type: "text", content: "Tide tables are printed each January." })).body.status).toBe(
      "replaced",
    );
    expect(await added()).toEqual([]);
  }, 180_000);

  test("refuses what works on the data directory alone with 501, naming object storage", async () => {
    const backup = await server.http("/api/admin/backup", { method: "POST", json: {}, jar });
    const exported = await server.http(`/api/rag/pipelines/${pipelineId}/export`, { method: "POST", json: {}, jar });
    for (const r of [backup, exported]) {
      expect([r.status, r.body.error?.message]).toEqual([501, expect.any(String)]);
      expect(r.body.error.code).toBe("not_implemented");
      expect(r.body.error.message).toContain("object storage (RAGD_STORAGE_URL)");
    }
  });

  test("deleting the pipeline removes its objects from the bucket", async () => {
    const id = pipelineId.replaceAll("-", "");
    expect((await server.http(`/api/rag/pipelines/${pipelineId}`, { method: "DELETE", jar })).status).toBe(200);
    await waitFor("the pipeline's objects gone", async () => {
      const left = [...(await keysUnder(`${PREFIX}/lance/`)), ...(await keysUnder(`${PREFIX}/files/`))];
      return !left.some((k) => k.includes(id) || k.includes(pipelineId));
    });
  });

  test("is not ready once the object store is gone, saying which dependency is missing", async () => {
    await relay.close();
    const ready = await server.http("/readyz");
    expect(ready.status).toBe(503);
    const check = ready.body.checks.find((c: { name: string }) => c.name === "object storage");
    expect(check.ok).toBe(false);
    expect(check.error).toContain(`s3://${store.bucket}`);
    expect(ready.body.checks).toContainEqual(expect.objectContaining({ name: "sqlite", ok: true }));
  }, 30_000);
});
