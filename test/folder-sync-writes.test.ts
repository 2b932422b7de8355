/**
 * A folder's first sync writes its new files in group commits (ingest/synced-files.ts,
 * SyncedFiles.write), not one commit a file: 1,000 files took 1,000 commits before, and
 * the first sync of 1,000 small files ran at under half the batch documents API's
 * throughput (bench/connected-first-sync.ts). Within a commit they go in a few statements
 * for all (engine.createDocuments), not one document at a time. A file that cannot be
 * stored still fails alone, its reason listed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../src/db/schema";
import { FolderSync } from "../src/ingest/sync/folder-sync";
import type { FolderScan } from "../src/ingest/folder/types";
import { DocumentsFixture } from "./support/documents";
import { type SourceJson, waitFor } from "./support/ingest";
import { tempDir } from "./support/temp";

const base = realpathSync(tempDir());
const folder = join(base, "empty");
const f = new DocumentsFixture();

beforeAll(async () => {
  mkdirSync(folder, { recursive: true });
  await f.open({ folderRoots: [base] });
});
afterAll(async () => {
  await f.close();
  rmSync(base, { recursive: true, force: true });
});

test("1,000 new files are stored in a few commits, and a file that cannot be stored fails alone", async () => {
  const made = await f.c.addSource(f.pid, { type: "folder", path: folder });
  expect(made.status).toBe(201);
  await waitFor("the empty folder's sync", async () => {
    const s = (await f.c.call("GET", `/api/rag/pipelines/${f.pid}/sources/${made.body.id}`)).body as SourceJson;
    return s.syncReport ? s : undefined;
  });
  // A text source already holds the external id one of the files would take.
  expect((await f.put("taken.txt", { type: "text", content: "already here" })).status).toBe(201);
  const files = Array.from({ length: 1000 }, (_, i) => ({
    path: `f${String(i).padStart(4, "0")}.txt`,
    size: 10,
    modifiedAt: "2026-12-06T00:00:00.000Z",
    hash: `${i}`.padStart(64, "0"),
  }));
  files.push({ path: "taken.txt", size: 10, modifiedAt: "2026-12-06T00:00:00.000Z", hash: "f".repeat(64) });
  const scan: FolderScan = { files, failures: [], unlisted: [] };

  const { db, engine, vectorStore: store } = f.t.services;
  const sync = new FolderSync(db, engine, store);
  const atomically = db.atomically.bind(db);
  let commits = 0;
  db.atomically = ((fn) => {
    commits++;
    return atomically(fn);
  }) as typeof db.atomically;
  const createDocument = engine.createDocument.bind(engine);
  let oneByOne = 0;
  engine.createDocument = ((...args) => {
    oneByOne++;
    return createDocument(...args);
  }) as typeof engine.createDocument;
  try {
    const task = { documentId: made.body.id, collectionId: f.pid } as Task;
    const report = await sync.finish(task, scan);
    expect(report).toMatchObject({ added: 1000, changed: 0, deleted: 0, failed: 1 });
    expect(report!.failures).toEqual([
      { path: "taken.txt", reason: "its path is the external id of another source of this pipeline" },
    ]);
  } finally {
    db.atomically = atomically;
    engine.createDocument = createDocument;
  }
  // Two group commits of 500 and the report (4 seen), with room for the commits of the
  // files' own tasks that end meanwhile; one commit a file was 1,159.
  expect(commits).toBeLessThan(20);
  // Only the group holding the refused file went in one document at a time (that file alone).
  expect(oneByOne).toBe(1);
  const listed = await f.c.sources(f.pid);
  expect(listed.filter((s) => s.parentSourceId === made.body.id)).toHaveLength(1000);
});
