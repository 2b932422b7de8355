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
import { type SourceJson, waitFor } from "../test/support/ingest";

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

interface Report {
  finishedAt: string;
  added: number;
  changed: number;
  unchanged: number;
}

/** Waits for a sync ended after `after` and for every file of it to be ready; the source. */
async function synced(id: string, after: string, timeoutMs: number): Promise<SourceJson> {
  const source = await waitFor(
    "the sync",
    async () => {
      const s = (await f.c.call("GET", `/api/rag/pipelines/${f.pid}/sources/${id}`)).body as SourceJson;
      const r = s?.syncReport as Report | null;
      return s?.status === "ready" && r && r.finishedAt > after ? s : undefined;
    },
    timeoutMs,
    100,
  );
  const waiting = `/api/rag/pipelines/${f.pid}/sources?status=queued,processing&pageSize=1`;
  await waitFor(
    "the files",
    async () => ((await f.c.call("GET", waiting)).body.total === 0 ? true : undefined),
    timeoutMs,
    100,
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
    `${label}: ${seconds.toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU, ` +
      `added ${added}, changed ${changed}, unchanged ${unchanged}, texts embedded ${f.fake.stats().inputs - inputs}`,
  );
  return s;
}

const hour = 3_600_000;
let source = await measure(`first sync of ${FILES} files`, async () => {
  const r = await f.c.addSource(f.pid, { type: "folder", path: folder });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return synced(r.body.id, "", hour);
});
const again = (label: string) =>
  measure(label, async () => {
    const after = (source.syncReport as Report).finishedAt;
    await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${source.id}/refetch`);
    return synced(source.id, after, hour);
  });
source = await again("sync of the unchanged folder");
source = await again("sync of the unchanged folder, again");
const later = new Date(Date.now() + 60_000);
for (let i = 0; i < FILES; i++) utimesSync(join(folder, `d${Math.floor(i / 500)}`, `f${i}.txt`), later, later);
source = await again("sync after every modification time changed (same bytes)");

await f.close();
rmSync(base, { recursive: true, force: true });
