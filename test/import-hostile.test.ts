/**
 * An imported export is the uploader's bytes (docs/API.md, Export and import): a user
 * may unpack their own export, change any field, fix the manifest's hashes and import
 * it. Each case here is such an archive; each must be refused whole (400, nothing
 * stored, no file moved) or stored only as the API would have stored it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExportManifest } from "../src/backup/export";
import { fileHeader, padding } from "../src/backup/tar";
import { makeApp, type TestApp } from "./support/app";
import {
  exportResponse,
  importArchive,
  repackExport,
  sourceRows,
  unpackExport,
  writeSourceRows,
} from "./support/archives";
import { Client } from "./support/ingest";

let app: TestApp;
let owner: Client;
let exported: Uint8Array;
let head: Omit<ExportManifest, "entries">;

/** The export unpacked into a fresh directory, for a case to change. */
async function unpack(): Promise<string> {
  const u = await unpackExport(exported);
  head = u.head;
  return u.dir;
}

/** The directory packed again with a manifest whose hashes match, as an attacker would. */
const repack = (dir: string, headPatch: Partial<ExportManifest> = {}) => repackExport({ dir, head }, headPatch);

beforeAll(async () => {
  app = await makeApp();
  owner = await Client.create(app);
  const id = await owner.pipeline({ name: "Mine" });
  await owner.addSource(id, {
    type: "text",
    name: "note",
    content: "Harbour cranes lift containers.",
    externalId: "n1",
  });
  await owner.upload(id, "cranes.txt", new TextEncoder().encode("A file about harbour cranes.\n".repeat(20)));
  await owner.allSettled(id);
  const out = await exportResponse(app, owner.cookie, id);
  expect(out.status).toBe(200);
  exported = new Uint8Array(await out.arrayBuffer());
}, 60_000);

afterAll(async () => {
  await app?.close();
});

describe("import of a changed export", () => {
  test("a source id that climbs out of the staging directory moves no file and stores nothing", async () => {
    const secretPath = join(app.config.dataDir, "secret.key");
    const secret = readFileSync(secretPath);
    const dir = await unpack();
    const rows = sourceRows(dir);
    const file = rows.find((r) => r.type === "file")!;
    rows.push({ ...file, id: "../../../secret.key", externalId: null });
    writeSourceRows(dir, rows);
    const r = await importArchive(app, owner.cookie, await repack(dir));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /import refused: sources\.jsonl line 3: id must be a source id; nothing was stored/,
    );
    expect(readFileSync(secretPath)).toEqual(secret);
    expect((await owner.call("GET", "/api/rag/pipelines")).body.total).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  });

  // Each case changes the first (text) source's line; each is refused whole.
  const cases: [string, (row: Record<string, unknown>) => void, RegExp][] = [
    ["nested metadata", (r) => (r.metadata = JSON.stringify({ a: { b: 1 } })), /metadata\.a: must be a string/],
    [
      "a reserved metadata key",
      (r) => (r.metadata = JSON.stringify({ url: "http://phish.example/" })),
      /"url" is reserved/,
    ],
    ["an unknown type", (r) => (r.type = "exe"), /type must be one of: text, file, url, api/],
    [
      "an external id with NUL",
      (r) => (r.externalId = `a\u0000${"x".repeat(5000)}`),
      /externalId: must be at most 256/,
    ],
    ["an external id of ..", (r) => (r.externalId = ".."), /externalId: must not be . or ../],
    ["a field no export has", (r) => (r.filePath = "/etc/passwd"), /filePath is not a field/],
    ["a URL on a text source", (r) => (r.url = "http://127.0.0.1/"), /url is only for url, api and git sources/],
    [
      "a URL the fetch rules refuse",
      (r) => Object.assign(r, { type: "url", content: null, url: "http://127.0.0.1:9/" }),
      /url: address 127\.0\.0\.1 is refused by the fetch rules/,
    ],
    ["an empty name", (r) => (r.name = "   "), /name must be 1 to 200 characters/],
  ];
  for (const [what, change, message] of cases)
    test(`refused: ${what}`, async () => {
      const dir = await unpack();
      const rows = sourceRows(dir);
      change(rows.find((r) => r.type === "text")!);
      writeSourceRows(dir, rows);
      const r = await importArchive(app, owner.cookie, await repack(dir));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_request");
      expect(r.body.error.message).toMatch(message);
      expect((await owner.call("GET", "/api/rag/pipelines")).body.total).toBe(1);
      rmSync(dir, { recursive: true, force: true });
    });

  test("refused: an entry an export never holds, and a model the settings do not name", async () => {
    const dir = await unpack();
    writeFileSync(join(dir, "extra.txt"), "x");
    expect((await importArchive(app, owner.cookie, await repack(dir))).body.error.message).toContain(
      '"extra.txt" is not an entry',
    );
    rmSync(join(dir, "extra.txt"));
    const r = await importArchive(app, owner.cookie, await repack(dir, { model: "ollama/other" }));
    expect(r.body.error.message).toContain("embeddingModel must be the model the manifest says");
    for (const formatVersion of [2, "1" as unknown as number]) {
      const v = await importArchive(app, owner.cookie, await repack(dir, { formatVersion }));
      expect(v.body.error.message).toContain(
        `its export format is version ${formatVersion}, and this ragd reads up to version 1`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test("refused with 400, not 500: no pipeline.json, a pax header too large or not UTF-8", async () => {
    const dir = await unpack();
    rmSync(join(dir, "pipeline.json"));
    const missing = await importArchive(app, owner.cookie, await repack(dir));
    expect([missing.status, missing.body.error.message]).toEqual([
      400,
      expect.stringContaining("an export has pipeline.json, and this one lists none"),
    ]);
    rmSync(dir, { recursive: true, force: true });
    // A pax header (type x) before the export's first entry.
    const pax = (body: Uint8Array) => {
      const h = fileHeader("PaxHeader", body.length, 0);
      h[156] = "x".charCodeAt(0);
      let sum = 0;
      h.fill(32, 148, 156);
      for (const b of h) sum += b;
      h.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
      return Buffer.concat([h, body, padding(body.length), exported]);
    };
    const huge = await importArchive(app, owner.cookie, pax(new Uint8Array(100_000).fill(65)));
    expect([huge.status, huge.body.error.message]).toEqual([400, expect.stringContaining("a pax header is too large")]);
    const badUtf8 = await importArchive(
      app,
      owner.cookie,
      pax(Uint8Array.of(0x31, 0x30, 0x20, 0xff, 0xfe, 0x3d, 0x0a)),
    );
    expect([badUtf8.status, badUtf8.body.error.message]).toEqual([400, expect.stringContaining("not UTF-8")]);
    // Named as the uploader knows it, not by the server's staging path.
    expect(badUtf8.body.error.message).toStartWith("import refused: the archive: ");
    expect((await owner.call("GET", "/api/rag/pipelines")).body.total).toBe(1);
  });

  test("a user at their pipeline limit is refused before the archive is read", async () => {
    // A free account (one pipeline) that has its one.
    const cookie = await app.signup();
    const made = await app.call("POST", "/api/rag/pipelines", { cookie, body: { name: "the one a free tier allows" } });
    expect(made.status).toBe(201);
    const r = await importArchive(app, cookie, new TextEncoder().encode("not a tar at all"));
    expect([r.status, r.body.error.code]).toEqual([403, "tier_limit_reached"]);
  });

  test("refused: settings a create request would refuse, named as the request names them", async () => {
    const dir = await unpack();
    const settings = JSON.parse(readFileSync(join(dir, "pipeline.json"), "utf8"));
    writeFileSync(join(dir, "pipeline.json"), JSON.stringify({ ...settings, chunkSize: 10, filePath: "/etc/passwd" }));
    const r = await importArchive(app, owner.cookie, await repack(dir));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^import refused: pipeline\.json: chunkSize .*; nothing was stored$/);
    expect((await owner.call("GET", "/api/rag/pipelines")).body.total).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  });

  test("counts and hashes are recomputed, not believed", async () => {
    const dir = await unpack();
    const rows = sourceRows(dir);
    for (const r of rows) {
      r.chunkCount = 9999;
      r.contentHash = "0".repeat(64);
      r.fileSize = 1;
    }
    writeSourceRows(dir, rows);
    const r = await importArchive(app, owner.cookie, await repack(dir));
    expect(r.status).toBe(201);
    const got = await owner.call("GET", `/api/rag/pipelines/${r.body.pipelineId}/sources`);
    const sources = got.body as any[];
    expect(sources).toHaveLength(2);
    for (const s of sources) expect(s.chunkCount).toBeLessThan(100);
    const file = sources.find((s) => s.type === "file");
    expect(file.fileSize).toBe("A file about harbour cranes.\n".length * 20);
    rmSync(dir, { recursive: true, force: true });
  });
});
