/**
 * A Git source of many small files (docs/API.md, "Git sources"), in process, against a
 * repository served by `git http-backend` on loopback (test/support/git-server.ts): the
 * first sync (clone, every file a new document, embedded by the fake Ollama of the tests),
 * a sync of the unchanged branch, then one after a commit that changes a single file:
 * wall time, the process's CPU time, and texts embedded.
 *
 *   bun bench/git-sync.ts [files=1000] [workers=2]
 */
import { rmSync } from "node:fs";
import { tempDir } from "../test/support/app";
import { DocumentsFixture } from "../test/support/documents";
import { type SyncReportJson, syncTiming } from "./sync-timing";
import { startGitServer } from "../test/support/git-server";

const FILES = Number(process.argv[2] ?? 1000);
const WORKERS = Number(process.argv[3] ?? 2);

const base = tempDir("ragd-git-bench-");
const repo = await startGitServer(base);
for (let i = 0; i < FILES; i++)
  repo.write(`d${Math.floor(i / 100)}/f${i}.md`, `File ${i} of the repository tells of item ${i} and its neighbours.`);
repo.git("add", "-A");
repo.git("commit", "-q", "-m", "many files");
repo.git("push", "-q", "origin", "main");

const f = new DocumentsFixture();
await f.open({ fetchAllow: ["127.0.0.1"], workers: WORKERS });

const { synced, measure } = syncTiming(f, 2);

let source = await measure(`first sync of ${FILES} files`, async () => {
  const r = await f.c.addSource(f.pid, { type: "git", url: repo.url });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return synced(r.body.id, "");
});
const again = (label: string) =>
  measure(label, async () => {
    const after = (source.syncReport as SyncReportJson).finishedAt;
    await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${source.id}/refetch`);
    return synced(source.id, after);
  });
source = await again("sync of the unchanged branch");
source = await again("sync of the unchanged branch, again");
repo.write("d0/f0.md", "File 0 now tells of something else entirely.");
repo.git("commit", "-q", "-am", "one file");
repo.git("push", "-q", "origin", "main");
source = await again("sync after a commit changing one file");

await f.close();
await repo.stop();
rmSync(base, { recursive: true, force: true });
