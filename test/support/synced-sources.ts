/**
 * What the folder, bucket and Git source tests share: a parent source's files by external
 * id, waiting for a sync and its files, and asking for a sync now.
 */
import type { SyncReport } from "../../src/ingest/sync/synced-files";
import type { DocumentsFixture } from "./documents";
import { type SourceJson, waitFor } from "./ingest";

export const reportOf = (s: SourceJson) => s.syncReport as SyncReport;

export function syncedSources(f: DocumentsFixture) {
  /** The parent source's files, by external id (the path under the parent). */
  async function filesOf(parentId: string): Promise<Map<string, SourceJson>> {
    const all = await f.c.sources(f.pid);
    return new Map(all.filter((s) => s.parentSourceId === parentId).map((s) => [s.externalId as string, s] as const));
  }

  /** Waits for a sync that ended after `after`, and for its files to settle. */
  async function synced(id: string, after = ""): Promise<SourceJson> {
    const source = await waitFor("the sync to finish", async () => {
      const s = await f.c.source(f.pid, id);
      const report = s?.syncReport as SyncReport | null;
      return s?.status === "ready" && report && report.finishedAt > after ? s : undefined;
    });
    await waitFor("the files to settle", async () =>
      [...(await filesOf(id)).values()].every((p) => p.status === "ready") ? true : undefined,
    );
    return source;
  }

  const refetch = (id: string) => f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${id}/refetch`);

  return { filesOf, synced, refetch };
}
