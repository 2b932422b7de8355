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
import { startGitServer } from "../test/support/git-server";
import { type SourceJson, waitFor } from "../test/support/ingest";

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

interface Report {
  finishedAt: string;
  added: number;
  changed: number;
  unchanged: number;
}

/** Waits for a sync ended after `after` and for every file of it to be ready; the source. */
async function synced(id: string, after: string): Promise<SourceJson> {
  const source = await waitFor(
    "the sync",
    async () => {
      const s = (await f.c.call("GET", `/api/rag/pipelines/${f.pid}/sources/${id}`)).body as SourceJson;
      const r = s?.syncReport as Report | null;
      return s?.status === "ready" && r && r.finishedAt > after ? s : undefined;
    },
    3_600_000,
    50,
  );
  const waiting = `/api/rag/pipelines/${f.pid}/sources?status=queued,processing&pageSize=1`;
  await waitFor(
    "the files",
    async () => ((await f.c.call("GET", waiting)).body.total === 0 ? true : undefined),
    3_600_000,
    50,
  );
  return source;
}

/** Runs `sync` and prints its wall time, CPU time, report and texts embedded. */
async function measure(label: string, sync: () => Promise<SourceJson>) {
  const inputs = f.fake.stats().inputs;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const s = await sync();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const { added, changed, unchanged } = s.syncReport as Report;
  console.log(
    `${label}: ${seconds.toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU, ` +
      `added ${added}, changed ${changed}, unchanged ${unchanged}, texts embedded ${f.fake.stats().inputs - inputs}`,
  );
  return s;
}

let source = await measure(`first sync of ${FILES} files`, async () => {
  const r = await f.c.addSource(f.pid, { type: "git", url: repo.url });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return synced(r.body.id, "");
});
const again = (label: string) =>
  measure(label, async () => {
    const after = (source.syncReport as Report).finishedAt;
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
