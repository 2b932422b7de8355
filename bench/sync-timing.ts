/**
 * What the folder, bucket and Git sync benches share: waiting for a parent source's sync
 * and every file of it, and timing a sync (wall, this process's CPU, its report, the texts
 * the fake Ollama embedded).
 */
import type { DocumentsFixture } from "../test/support/documents";
import { type SourceJson, waitFor } from "../test/support/ingest";

export interface SyncReportJson {
  finishedAt: string;
  added: number;
  changed: number;
  unchanged: number;
}

const HOUR_MS = 3_600_000;

export function syncTiming(f: DocumentsFixture, digits = 1) {
  /** Waits for a sync of source `id` ended after `after` and for every file of it to be ready; the source. */
  async function synced(id: string, after: string, timeoutMs = HOUR_MS): Promise<SourceJson> {
    const source = await waitFor(
      "the sync",
      async () => {
        const s = (await f.c.call("GET", `/api/rag/pipelines/${f.pid}/sources/${id}`)).body as SourceJson;
        if (s?.status === "failed") throw new Error(`the sync failed: ${s.error}`);
        const r = s?.syncReport as SyncReportJson | null;
        return s?.status === "ready" && r && r.finishedAt > after ? s : undefined;
      },
      timeoutMs,
      50,
    );
    const waiting = `/api/rag/pipelines/${f.pid}/sources?status=queued,processing&pageSize=1`;
    await waitFor(
      "the files",
      async () => ((await f.c.call("GET", waiting)).body.total === 0 ? true : undefined),
      timeoutMs,
      50,
    );
    return source;
  }

  /** Runs `sync` and prints its wall time, CPU time, report and texts embedded. */
  async function measure(label: string, sync: () => Promise<SourceJson>): Promise<SourceJson> {
    const inputs = f.fake.stats().inputs;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const s = await sync();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const { added, changed, unchanged } = s.syncReport as SyncReportJson;
    console.log(
      `${label}: ${seconds.toFixed(digits)} s wall, ${((used.user + used.system) / 1e6).toFixed(digits)} s CPU, ` +
        `added ${added}, changed ${changed}, unchanged ${unchanged}, texts embedded ${f.fake.stats().inputs - inputs}`,
    );
    return s;
  }

  return { synced, measure };
}
