/**
 * Clones no Git source owns any more: a pipeline deleted with its sources (the rows go by
 * cascade, without the source's own delete), or a server stopped mid-delete. Swept when
 * a pipeline is deleted and at start; a clone is named by its source's id (repo.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../db/client";
import { findDocumentById } from "../../db/repo/documents";
import { removeClone } from "./repo";

/** Removes the clones under `<data>/git` whose source is gone or no Git source; how many. */
export async function removeOrphanClones(db: Db, dataDir: string): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, "git"));
  } catch {
    return 0; // no Git source ever synced here
  }
  let removed = 0;
  for (const id of names) if (await removeCloneIfGone(db, dataDir, id)) removed++;
  return removed;
}

/**
 * Removes the clone of `sourceId` unless a Git source of that id exists; whether it did.
 * Called too when a cancelled Git sync has stopped (WorkerPool.onStopped): deleted while
 * its job fetched (its pipeline, say), the clone the delete removed may have been written
 * again by the fetch.
 */
export async function removeCloneIfGone(db: Db, dataDir: string, sourceId: string): Promise<boolean> {
  if ((await findDocumentById(db, sourceId))?.type === "git") return false;
  await removeClone(dataDir, sourceId);
  return true;
}
