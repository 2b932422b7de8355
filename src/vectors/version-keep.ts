/**
 * Which old versions of a table a cleanup may take (TableUpkeep's optimize): those older
 * than KEEP_VERSIONS_MS, but never the version that was current when the cleanup began
 * (a search that read its manifest a moment before the compaction still reads its files)
 * nor a version a reader has pinned (an export reads its version for minutes: VersionPins).
 * LanceDB's cleanup removes every version older than a date but the latest; the date is
 * therefore set no later than the oldest of those versions' commit times.
 *
 * LanceDB's Node API turns the date into an age, and its cleanup takes that age from its own
 * clock once the compaction before it is done: the date moves later by as long as the
 * compaction took. CleanupClock sets it earlier by that much (the table's last optimize).
 *
 * Why not LanceDB's tags: a cleanup that meets a tagged version fails the whole optimize()
 * ("tagged version(s) have been marked for cleanup"), and the Node API cannot ask it to
 * skip them; and every reader of an old version is in the server's process (exports run
 * on a data directory only), so pins in memory reach it.
 */
import type { OptimizeStats, Table } from "@lancedb/lancedb";
import { retryOnConflict } from "./retry";

/**
 * Versions are kept this long after their commit. While a large table is written and
 * searched, each index catch-up writes its newest fragment anew (1–2 GB at a million
 * chunks), so retention multiplies the disk a table takes (docs/notes/2026-12-07-ten-million.md);
 * searches last seconds, and replicas see another's commit within a second.
 */
export const KEEP_VERSIONS_MS = 60_000;

/** The table versions readers hold open, by table name (counted: two exports may read one version). */
export class VersionPins {
  private readonly held = new Map<string, Map<number, number>>();

  /** Holds `version` of `table` until the returned function is called (once). */
  pin(table: string, version: number): () => void {
    const versions = this.held.get(table) ?? new Map<number, number>();
    this.held.set(table, versions);
    versions.set(version, (versions.get(version) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (versions.get(version) ?? 1) - 1;
      if (n > 0) versions.set(version, n);
      else versions.delete(version);
      if (versions.size === 0 && this.held.get(table) === versions) this.held.delete(table);
    };
  }

  /** The versions of `table` held now. */
  of(table: string): number[] {
    return [...(this.held.get(table)?.keys() ?? [])];
  }
}

/**
 * The date before which `table`'s versions may be removed now: `latest`, or earlier, the
 * commit time of a version in `keep.pinned` or, with `keep.current`, of its current one.
 * (The sweep of unnamed files, TableUpkeep.removeUnnamed, leaves the current version out:
 * its date also bounds the files it removes, and it runs once a day with a date a day ago.)
 */
export async function cleanupCutoff(
  table: Table,
  latest: Date,
  keep: { pinned: number[]; current: boolean },
): Promise<Date> {
  const kept = new Set(keep.pinned);
  if (keep.current) kept.add(await table.version());
  let cutoff = latest.getTime();
  if (kept.size === 0) return latest;
  for (const v of await table.listVersions()) {
    if (kept.has(v.version)) cutoff = Math.min(cutoff, v.timestamp.getTime());
  }
  return new Date(cutoff);
}

/**
 * The least the cleanup's date is set earlier by: a compaction of a few rows takes
 * milliseconds; a table's first in a process is not known before it ends.
 */
export const DRIFT_MIN_MS = 250;

/** Runs each table's optimize() with its cleanup's date set earlier by how long its last one took. */
export class CleanupClock {
  private readonly took = new Map<string, number>();

  /** optimize() on `name`, keeping the versions committed at or after `cutoff` (cleanupCutoff). */
  async optimize(name: string, table: Table, cutoff: Date, deleteUnverified = false): Promise<OptimizeStats> {
    const drift = Math.max(DRIFT_MIN_MS, this.took.get(name) ?? 0);
    const cleanupOlderThan = new Date(cutoff.getTime() - drift);
    const started = Date.now();
    const stats = await retryOnConflict(() => table.optimize({ cleanupOlderThan, deleteUnverified }));
    this.took.set(name, Date.now() - started);
    return stats;
  }
}
