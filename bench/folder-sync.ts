/**
 * A folder source of many small files (docs/API.md, "Folder sources"), in process: the
 * first sync (every file a new document, embedded by the fake Ollama of the tests, which
 * counts what it embeds), then syncs of the unchanged folder: wall time, the process's
 * CPU time, and texts embedded (target: none, within 30 s for 10,000 files). The last
 * sync runs after every file's modification time changed, its bytes not: each file is
 * hashed again and its metadata rewritten, still nothing embedded.
 *
 *   bun bench/folder-sync.ts [files=10000] [workers=2]
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../test/support/app";
import { DocumentsFixture } from "../test/support/documents";
import { type SyncReportJson, syncTiming } from "./sync-timing";

const FILES = Number(process.argv[2] ?? 10_000);
const WORKERS = Number(process.argv[3] ?? 2);

const base = tempDir("ragd-folder-bench-");
const folder = join(base, "share");
for (let i = 0; i < FILES; i++) {
  const dir = join(folder, `d${Math.floor(i / 500)}`);
  if (i % 500 === 0) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `f${i}.txt`), `File ${i} of the share tells of item ${i} and its neighbours ${i + 1}.`);
}

const f = new DocumentsFixture();
await f.open({ folderRoots: [base], workers: WORKERS });

const { synced, measure } = syncTiming(f);

let source = await measure(`first sync of ${FILES} files`, async () => {
  const r = await f.c.addSource(f.pid, { type: "folder", path: folder });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return synced(r.body.id, "");
});
const again = (label: string) =>
  measure(label, async () => {
    const after = (source.syncReport as SyncReportJson).finishedAt;
    await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${source.id}/refetch`);
    return synced(source.id, after);
  });
source = await again("sync of the unchanged folder");
source = await again("sync of the unchanged folder, again");
const later = new Date(Date.now() + 60_000);
for (let i = 0; i < FILES; i++) utimesSync(join(folder, `d${Math.floor(i / 500)}`, `f${i}.txt`), later, later);
source = await again("sync after every modification time changed (same bytes)");

await f.close();
rmSync(base, { recursive: true, force: true });
