/**
 * Export and import of synced sources (docs/API.md, Export and import): a folder source
 * and its files travel, the files linked to the imported folder, and the next sync finds
 * them unchanged; an s3 source travels without its keys and its sync then says to add
 * it again. Every field of the archive is the uploader's: a folder outside
 * RAGD_FOLDER_ROOTS, a file linked to a source that is no synced parent, or a hash that
 * is not its parent's kind is refused, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeApp, type TestApp } from "./support/app";
import {
  exportResponse,
  importArchive,
  repackExport,
  sourceRows,
  unpackExport,
  writeSourceRows,
} from "./support/archives";
import { Client, waitFor } from "./support/ingest";
import { tempDir } from "./support/temp";

const base = realpathSync(tempDir());
const roots = join(base, "roots");
const share = join(roots, "share");
const outside = join(base, "outside");
let app: TestApp;
let owner: Client;
let folderId = "";
let exported: Uint8Array;

/** The export unpacked, changed by `change`, packed again with a manifest whose hashes match. */
async function changed(change: (rows: Record<string, any>[]) => void): Promise<Uint8Array> {
  const u = await unpackExport(exported);
  const rows = sourceRows(u.dir);
  change(rows);
  writeSourceRows(u.dir, rows);
  const bytes = await repackExport(u);
  rmSync(dirname(u.dir), { recursive: true, force: true });
  return bytes;
}

const importBytes = (bytes: Uint8Array) => importArchive(app, owner.cookie, bytes);

/** Waits for a sync of `id` that ended after `after`. */
const synced = (pipelineId: string, id: string, after = "") =>
  waitFor("the sync", async () => {
    const s = await owner.source(pipelineId, id);
    const r = s?.syncReport as { finishedAt: string } | null;
    return s?.status === "ready" && r && r.finishedAt > after ? s : undefined;
  });

beforeAll(async () => {
  mkdirSync(join(share, "sub"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(share, "cranes.md"), "Harbour cranes lift containers off the ships at dawn.");
  writeFileSync(join(share, "tides.txt"), "Spring tides and neap tides move the harbour's moorings.");
  writeFileSync(join(share, "sub", "gulls.md"), "Gulls follow the fishing boats back into the harbour.");
  app = await makeApp({ folderRoots: [roots] });
  owner = await Client.create(app);
  const id = await owner.pipeline({ name: "Shares" });
  const made = await owner.addSource(id, { type: "folder", path: share, refreshEvery: "1h" });
  expect(made.status).toBe(201);
  folderId = made.body.id;
  await synced(id, folderId);
  await owner.allSettled(id);
  const out = await exportResponse(app, owner.cookie, id);
  expect(out.status).toBe(200);
  exported = new Uint8Array(await out.arrayBuffer());
}, 60_000);

afterAll(async () => {
  await app?.close();
  rmSync(base, { recursive: true, force: true });
});

describe("a folder source exported and imported", () => {
  test("the folder and its files travel, linked; the next sync finds every file unchanged", async () => {
    const r = await importBytes(exported);
    expect(r.status).toBe(201);
    const pid = r.body.pipelineId as string;
    const all = await owner.sources(pid);
    const folder = all.find((s) => s.type === "folder")!;
    expect(folder.folder).toMatchObject({ path: share, include: [], exclude: [] });
    expect(folder.refreshEvery).toBe(3600);
    const files = all.filter((s) => s.parentSourceId === folder.id);
    expect(files.map((s) => s.externalId).sort()).toEqual(["cranes.md", "sub/gulls.md", "tides.txt"]);
    expect(files.every((s) => s.status === "ready" && s.chunkCount > 0)).toBe(true);
    expect((await owner.call("POST", `/api/rag/pipelines/${pid}/sources/${folder.id}/refetch`)).status).toBe(202);
    const after = await synced(pid, folder.id);
    expect(after.syncReport).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 3, failed: 0 });
  });

  test("a Git source travels with its branch and rules, its files linked by their blob ids", async () => {
    const bytes = await changed((rows) => {
      const settings = { branch: null, include: ["**/*.md"], exclude: [], maxFileMb: 50, maxTotalMb: 1024 };
      const folder = rows.find((x) => x.type === "folder")!;
      rows.push({
        ...folder,
        id: "git1",
        type: "git",
        name: "handbook",
        url: "https://forge.example.invalid/handbook.git",
      });
      rows.at(-1)!.fetch = { ...folder.fetch, crawl: JSON.stringify(settings) };
      const file = rows.find((x) => x.type === "file");
      rows.push({
        ...file,
        id: "blob1",
        externalId: "intro.md",
        contentHash: "a".repeat(40),
        fetch: { crawlSourceId: "git1" },
      });
    });
    const r = await importBytes(bytes);
    expect(r.status).toBe(201);
    const all = await owner.sources(r.body.pipelineId);
    const git = all.find((s) => s.type === "git")!;
    expect(git.git).toMatchObject({ branch: null, include: ["**/*.md"] });
    expect(git.url).toBe("https://forge.example.invalid/handbook.git");
    expect(all.find((s) => s.externalId === "intro.md")?.parentSourceId).toBe(git.id);
  });

  test("an s3 source travels without keys: its sync fails, saying to add it again", async () => {
    const bytes = await changed((rows) => {
      const settings = {
        endpoint: "https://store.example.invalid",
        bucket: "docs",
        prefix: "guides/",
        region: "us-east-1",
      };
      rows.push({
        ...rows.find((x) => x.type === "folder"),
        id: "bucket1",
        type: "s3",
        name: "docs",
        externalId: null,
      });
      rows.at(-1)!.fetch = { ...rows.at(-1)!.fetch, crawl: JSON.stringify(settings) };
      const file = rows.find((x) => x.type === "file");
      rows.push({ ...file, id: "object1", externalId: "setup.md", contentHash: '"9b2cf535f27731c974343645a3985328"' });
      rows.at(-1)!.fetch = { crawlSourceId: "bucket1" };
    });
    const r = await importBytes(bytes);
    expect(r.status).toBe(201);
    const pid = r.body.pipelineId as string;
    const all = await owner.sources(pid);
    const bucket = all.find((s) => s.type === "s3")!;
    expect(bucket.s3).toMatchObject({ endpoint: "https://store.example.invalid", bucket: "docs", prefix: "guides/" });
    expect(JSON.stringify(bucket)).not.toContain("accessKeyId");
    expect(all.find((s) => s.externalId === "setup.md")?.parentSourceId).toBe(bucket.id);
    await owner.call("POST", `/api/rag/pipelines/${pid}/sources/${bucket.id}/refetch`);
    const failed = await waitFor("the failed sync", async () => {
      const s = await owner.source(pid, bucket.id);
      return s?.status === "failed" ? s : undefined;
    });
    expect(failed.error).toContain("add the source again");
  });
});

describe("a changed export is refused whole", () => {
  const refusals: [string, (rows: Record<string, any>[]) => void, RegExp][] = [
    [
      "a folder outside RAGD_FOLDER_ROOTS",
      (rows) => {
        const f = rows.find((x) => x.type === "folder")!;
        f.fetch.crawl = JSON.stringify({ ...JSON.parse(f.fetch.crawl), path: outside });
      },
      /fetch\.crawl\.path is not under any folder the server allows/,
    ],
    [
      "a file linked to a source that is no synced parent",
      (rows) => {
        const f = rows.find((x) => x.type === "file")!;
        f.fetch.crawlSourceId = f.id;
      },
      /fetch\.crawlSourceId must name a folder, s3 or git source of the archive/,
    ],
    [
      "a folder's file whose hash is no SHA-256",
      (rows) => {
        rows.find((x) => x.type === "file")!.contentHash = "../../etc/passwd";
      },
      /contentHash must be a SHA-256, as a file of a folder source has/,
    ],
    [
      "a folder source that names a parent",
      (rows) => {
        const f = rows.find((x) => x.type === "folder")!;
        f.fetch.crawlSourceId = rows.find((x) => x.type === "file")!.id;
      },
      /fetch\.crawlSourceId is for crawled pages and synced files/,
    ],
  ];
  for (const [what, change, message] of refusals)
    test(`${what}: 400, nothing stored`, async () => {
      const before = (await owner.call("GET", "/api/rag/pipelines")).body.total;
      const r = await importBytes(await changed(change));
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(message);
      expect((await owner.call("GET", "/api/rag/pipelines")).body.total).toBe(before);
    });
});
