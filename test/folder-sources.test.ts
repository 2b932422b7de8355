/**
 * Folder sources (docs/API.md, "Folder sources") on real files: a folder synced three
 * times with files added, changed, renamed and deleted between syncs; links out of the
 * folder, FIFOs and hidden files refused; a folder that vanished fails the sync and
 * deletes nothing; paths outside RAGD_FOLDER_ROOTS refused.
 */
import { reportOf, syncedSources } from "./support/synced-sources";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { defaultConfig } from "../src/config";
import { readFolderSettings } from "../src/core/folder-settings";
import { eventsAfter } from "../src/db/repo/events";
import { readFolderFile } from "../src/ingest/folder/read";
import { DocumentsFixture } from "./support/documents";
import { chunkRows, duplicates, NO_DUPLICATES, type SourceJson, waitFor } from "./support/ingest";
import { tempDir } from "./support/temp";

const base = realpathSync(tempDir());
const root = join(base, "shares");
const folder = join(root, "team");
const outside = join(base, "elsewhere");
const f = new DocumentsFixture();
const { filesOf, synced, refetch } = syncedSources(f);

/** Text of about `n` sentences about `topic`: a few chunks at chunkSize 100. */
const prose = (topic: string, n = 6) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} of the ${topic} notes speaks of ${topic} matters.`).join(" ");

const write = (rel: string, text: string) => {
  mkdirSync(join(folder, rel, ".."), { recursive: true });
  writeFileSync(join(folder, rel), text);
};

beforeAll(async () => {
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), prose("forbidden"));
  write("alpha.md", prose("alpha"));
  write("beta.txt", prose("beta"));
  write("sub/gamma.md", prose("gamma"));
  write(".hidden.md", prose("hidden"));
  symlinkSync(join(outside, "secret.txt"), join(folder, "leak.txt"));
  Bun.spawnSync(["mkfifo", join(folder, "pipe")]);
  await f.open({ folderRoots: [root] });
});
afterAll(async () => {
  await f.close();
  rmSync(base, { recursive: true, force: true });
});

/** Every chunk's text (vector query, topK 100 covers this corpus), and whether any chunk row is there twice. */
async function index() {
  const contents = await f.contents();
  const col = (await f.c.getPipeline(f.pid)) as { activeGeneration?: number };
  const rows = await chunkRows(f.t.dataDir, f.pid, col.activeGeneration ?? 1);
  return { text: contents.join("\n"), dupes: duplicates(rows.map((r) => r.id)), rows: rows.length };
}

describe("folder source settings", () => {
  test("no roots by default: a folder source is refused, naming the setting", () => {
    expect(defaultConfig().folderRoots).toEqual([]);
    const problems = readFolderSettings({ path: folder }, defaultConfig().folderRoots);
    expect(JSON.stringify(problems)).toContain("RAGD_FOLDER_ROOTS");
  });

  test("a path outside the roots, or a link that leads out of them, is 400", async () => {
    const link = join(root, "door");
    symlinkSync(outside, link);
    for (const path of [outside, link, "relative/path"]) {
      const r = await f.c.addSource(f.pid, { type: "folder", path });
      expect(r.status).toBe(400);
    }
    const r = await f.c.addSource(f.pid, { type: "folder", path: outside });
    expect(r.body.error.message).toContain("RAGD_FOLDER_ROOTS");
    rmSync(link);
  });

  test("folder fields on another type are 400", async () => {
    const r = await f.c.addSource(f.pid, { type: "text", content: "x", path: folder });
    expect(r.status).toBe(400);
  });
});

describe("a folder synced three times", () => {
  let source: SourceJson;

  test("first sync: each regular file a document; links, FIFOs and hidden files are not taken", async () => {
    const r = await f.c.addSource(f.pid, { type: "folder", path: folder, refreshEvery: "1h" });
    expect(r.status).toBe(201);
    source = await synced(r.body.id);
    expect(source.folder).toMatchObject({ path: folder, include: [], exclude: [], maxFileMb: 50 });
    expect(reportOf(source)).toMatchObject({ added: 3, changed: 0, deleted: 0, unchanged: 0, failed: 2 });
    expect(
      reportOf(source)
        .failures.map((x) => x.path)
        .sort(),
    ).toEqual(["leak.txt", "pipe"]);
    const files = await filesOf(source.id);
    expect([...files.keys()].sort()).toEqual(["alpha.md", "beta.txt", "sub/gamma.md"]);
    const gamma = files.get("sub/gamma.md")!;
    expect(gamma.type).toBe("file");
    expect(gamma.metadata).toMatchObject({ path: "sub/gamma.md", extension: "md", size: prose("gamma").length });
    expect(typeof (gamma.metadata as { modifiedAt: unknown }).modifiedAt).toBe("string");
    const { text, dupes } = await index();
    expect(text).toContain("alpha notes");
    expect(text).not.toContain("forbidden");
    expect(text).not.toContain("hidden notes");
    expect(dupes).toEqual(NO_DUPLICATES);
  });

  test("the sync's outcome is an event: source.ready with its counts", async () => {
    const events = await eventsAfter(f.t.services.db.reader, f.pid, 0, 10_000);
    const ready = events.filter((e) => e.documentId === source.id && e.type === "source.ready");
    expect(ready.length).toBeGreaterThan(0);
    expect(JSON.parse(ready.at(-1)!.data).sync).toMatchObject({ added: 3, failed: 2 });
  });

  test("a file names its folder in parentSourceId, in the sources and the documents API alike", async () => {
    const listed = await f.t.call("GET", "/api/rag/documents", { headers: f.auth() });
    expect(listed.status).toBe(200);
    const docs = listed.body.documents as SourceJson[];
    const gamma = docs.find((d) => d.externalId === "sub/gamma.md")!;
    expect(gamma.parentSourceId).toBe(source.id);
    const one = await f.get("sub/gamma.md");
    expect(one.body.parentSourceId).toBe(source.id);
    const shown = (await filesOf(source.id)).get("sub/gamma.md")!;
    for (const s of [gamma, one.body, shown]) {
      expect(s).not.toHaveProperty("folderSourceId");
      expect(s).not.toHaveProperty("bucketSourceId");
    }
    // The folder itself shows its settings and last sync there too.
    expect(docs.find((d) => d.id === source.id)?.syncReport).toMatchObject({ added: 3 });
  });

  test("second sync: added, changed, renamed and deleted files; only new bytes embedded", async () => {
    const before = await filesOf(source.id);
    rmSync(join(folder, "alpha.md"));
    write("beta.txt", prose("delta"));
    renameSync(join(folder, "sub/gamma.md"), join(folder, "sub/gamma-renamed.md"));
    write("epsilon.md", prose("epsilon"));
    const inputs = f.fake.stats().inputs;
    expect((await refetch(source.id)).status).toBe(202);
    source = await synced(source.id, reportOf(source).finishedAt);
    // The rename is one file gone and one new.
    expect(reportOf(source)).toMatchObject({ added: 2, changed: 1, deleted: 2, unchanged: 0, failed: 2 });
    const files = await filesOf(source.id);
    expect([...files.keys()].sort()).toEqual(["beta.txt", "epsilon.md", "sub/gamma-renamed.md"]);
    expect(files.get("beta.txt")!.id).toBe(before.get("beta.txt")!.id);
    const embedded = f.fake.stats().inputs - inputs;
    expect(embedded).toBe([...files.values()].reduce((n, s) => n + s.chunkCount, 0));
    const { text, dupes, rows } = await index();
    // The query sees the new version of beta.txt only, and nothing of the deleted file.
    expect(text).toContain("delta notes");
    expect(text).not.toContain("beta notes");
    expect(text).not.toContain("alpha notes");
    expect(dupes).toEqual(NO_DUPLICATES);
    expect(rows).toBe([...files.values()].reduce((n, s) => n + s.chunkCount, 0));
  });

  test("third sync, on the schedule: the same bytes embed nothing, a new modification time reaches the metadata", async () => {
    const before = await filesOf(source.id);
    const touched = new Date(Date.now() + 60_000);
    utimesSync(join(folder, "beta.txt"), touched, touched);
    const inputs = f.fake.stats().inputs;
    await f.t.services.db.atomically((tx) =>
      tx.run(
        sql`UPDATE source_fetches SET next_check_at = '2000-01-01T00:00:00.000Z' WHERE document_id = ${source.id}`,
      ),
    );
    expect(await f.t.services.refresh.tick()).toBe(1);
    source = await synced(source.id, reportOf(source).finishedAt);
    expect(reportOf(source)).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 3, failed: 2 });
    expect(f.fake.stats().inputs - inputs).toBe(0);
    const files = await filesOf(source.id);
    expect(files.get("beta.txt")!.indexedAt).toBe(before.get("beta.txt")!.indexedAt);
    expect((files.get("beta.txt")!.metadata as { modifiedAt: string }).modifiedAt).toBe(touched.toISOString());
  });

  test("the folder's new metadata reaches its files at once, and their chunks soon after", async () => {
    const patch = (metadata: object) =>
      f.c.call("PATCH", `/api/rag/pipelines/${f.pid}/sources/${source.id}`, { metadata });
    const teamOf = async (team: string) => {
      const r = await f.t.call("POST", "/api/rag/query", {
        headers: f.auth(),
        body: { query: "notes matters", topK: 50, mode: "keyword", filter: { metadata: { team } } },
      });
      expect(r.status).toBe(200);
      return new Set((r.body.results as { metadata: { sourceId: string } }[]).map((x) => x.metadata.sourceId));
    };
    expect((await patch({ team: "ops", _access: ["group:ops"] })).status).toBe(200);
    let files = await filesOf(source.id);
    for (const file of files.values())
      expect(file.metadata).toMatchObject({ team: "ops", _access: ["group:ops"], extension: expect.any(String) });
    const ids = [...files.values()].map((x) => x.id).sort();
    expect(
      [
        ...(await waitFor("the chunks to follow", async () =>
          (await teamOf("ops")).size ? teamOf("ops") : undefined,
        )),
      ].sort(),
    ).toEqual(ids);
    // A key the folder drops goes from every file; the next sync finds the files as they are.
    expect((await patch({ team: "support" })).status).toBe(200);
    files = await filesOf(source.id);
    const check = (all: Map<string, SourceJson>) => {
      for (const file of all.values()) {
        expect(file.metadata).toMatchObject({ team: "support", path: expect.any(String) });
        expect(file.metadata).not.toHaveProperty("_access");
      }
    };
    check(files);
    expect((await refetch(source.id)).status).toBe(202);
    source = await synced(source.id, reportOf(source).finishedAt);
    expect(reportOf(source)).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 3 });
    const again = await filesOf(source.id);
    check(again);
    for (const [path, file] of again) expect(file.updatedAt).toBe(files.get(path)!.updatedAt);
    await waitFor("the old team to leave the chunks", async () =>
      (await teamOf("ops")).size === 0 ? true : undefined,
    );
    expect([...(await teamOf("support"))].sort()).toEqual(ids);
  });

  test("the folder gone: the sync fails with a clear error and deletes nothing", async () => {
    const held = await filesOf(source.id);
    const moved = join(base, "moved-away");
    renameSync(folder, moved);
    try {
      expect((await refetch(source.id)).status).toBe(202);
      const failed = await waitFor("the sync to fail", async () => {
        const s = await f.c.source(f.pid, source.id);
        return s?.status === "failed" ? s : undefined;
      });
      expect(failed.error).toContain("cannot be read");
      expect(failed.error).toContain("nothing was deleted");
      const after = await filesOf(source.id);
      expect([...after.keys()].sort()).toEqual([...held.keys()].sort());
      expect((await index()).text).toContain("delta notes");
    } finally {
      renameSync(moved, folder);
    }
  });

  test("deleting the folder source deletes its files' documents", async () => {
    const r = await f.c.call("DELETE", `/api/rag/pipelines/${f.pid}/sources/${source.id}`);
    expect(r.status).toBe(200);
    expect((await filesOf(source.id)).size).toBe(0);
  });
});

describe("a file's task reads it in place, checked again", () => {
  test("a file swapped for a link, one under a folder that became a link, or one grown too large is refused", async () => {
    const dir = join(base, "recheck");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "ok.txt"), "fine");
    symlinkSync(join(outside, "secret.txt"), join(dir, "swapped.txt"));
    symlinkSync(outside, join(dir, "via"));
    const read = (path: string, maxBytes = 1000) => readFolderFile({ root: dir, path, maxBytes });
    expect(new TextDecoder().decode(await read("ok.txt"))).toBe("fine");
    await expect(read("swapped.txt")).rejects.toThrow("no longer a regular file");
    await expect(read("via/secret.txt")).rejects.toThrow("leads out of its folder");
    await expect(read("ok.txt", 2)).rejects.toThrow("larger than");
  });
});
