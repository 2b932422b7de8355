/**
 * Which old versions of a table a cleanup may take, and when cleanups run (TableUpkeep):
 * versions older than KEEP_VERSIONS_MS, but never the version that was current when the
 * upkeep began (a search that read its manifest a moment before the compaction still reads
 * its files) nor a version a reader has pinned (an export reads its version for minutes:
 * VersionPins). LanceDB's cleanup removes every version older than a date but the latest;
 * the date is therefore set no later than the oldest of those versions' commit times.
 *
 * LanceDB's Node API turns the date into an age, and its cleanup takes that age from its
 * own clock once the compaction before it is done, so the date moves later by as long as
 * the compaction took (seconds on a large table). So an upkeep's optimize() removes no
 * version (NO_PRUNE), and the cleanup runs in another optimize() right after it in the
 * table's write queue, once there is nothing left to compact: the date then moves by
 * milliseconds, within PRUNE_MARGIN_MS. Each such call costs about 0.3 s and a version,
 * so removals run at most every PRUNE_EVERY_MS per table (Pruning).
 *
 * Why not LanceDB's tags: a cleanup that meets a tagged version fails the whole optimize()
 * ("tagged version(s) have been marked for cleanup"), and the Node API cannot ask it to
 * skip them; and every reader of an old version is in the server's process (exports run
 * on a data directory only), so pins in memory reach it. Another replica's search reads
 * the version its handle saw up to a second ago: KEEP_VERSIONS_MS covers it.
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
/** A table's old versions are removed at most this often (each removal is an optimize() of its own). */
export const PRUNE_EVERY_MS = 30_000;
/** How far LanceDB's clock may run on past the date while the cleanup's empty compaction runs. */
export const PRUNE_MARGIN_MS = 1_000;
/** optimize() with this date removes no version. */
export const NO_PRUNE = new Date(0);

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
 */
export async function cleanupCutoff(
  table: Table,
  latest: Date,
  keep: { pinned: number[]; current: boolean },
): Promise<Date> {
  const kept = new Set(keep.pinned);
  if (keep.current) kept.add(await table.version());
  if (kept.size === 0) return latest;
  let cutoff = latest.getTime();
  for (const v of await table.listVersions()) {
    if (kept.has(v.version)) cutoff = Math.min(cutoff, v.timestamp.getTime());
  }
  return new Date(cutoff);
}

/** When each table's old versions were last removed, and the removal itself. */
export class Pruning {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly keepMs = KEEP_VERSIONS_MS,
    private readonly everyMs = PRUNE_EVERY_MS,
  ) {}

  /**
   * The date to prune `name` to after this upkeep, read before it commits anything (the
   * version current now is kept); null when its last removal was less than everyMs ago.
   */
  async planned(name: string, table: Table, pinned: number[]): Promise<Date | null> {
    if (Date.now() - (this.last.get(name) ?? Number.NEGATIVE_INFINITY) < this.everyMs) return null;
    return cleanupCutoff(table, new Date(Date.now() - this.keepMs), { pinned, current: true });
  }

  /**
   * Removes the versions committed before `cutoff` (less the margin) but the latest, and
   * their files. Call it in the table's write queue. The table is first compacted until there is nothing left to
   * compact (an optimize() may leave fragments for the next: on a table of 30 commits of
   * 20,000 rows the one after a catch-up still merged two, for 1.7 s), unless `last`, the
   * caller's optimize just before, compacted nothing; if it still has, the removal waits.
   */
  async prune(name: string, table: Table, cutoff: Date, last?: OptimizeStats): Promise<void> {
    let compacted = last === undefined || merged(last);
    for (let i = 0; compacted && i < SETTLE_TRIES; i++)
      compacted = merged(await retryOnConflict(() => table.optimize({ cleanupOlderThan: NO_PRUNE })));
    if (compacted) return;
    const cleanupOlderThan = new Date(cutoff.getTime() - PRUNE_MARGIN_MS);
    await retryOnConflict(() => table.optimize({ cleanupOlderThan }));
    this.last.set(name, Date.now());
  }

  /**
   * Removes the versions committed before `before`, a day ago, but the latest, and the
   * files no version names written before it (TableUpkeep.removeUnnamed), right after an
   * upkeep's optimize (a file newer than the latest version is left: it may belong to a
   * write under way). The seconds a compaction may take do not matter beside a day; the
   * version current before that upkeep is not kept (a table unwritten for a day, searched
   * during its sweep, is the one case).
   */
  async sweep(name: string, table: Table, before: Date): Promise<void> {
    await retryOnConflict(() => table.optimize({ cleanupOlderThan: before, deleteUnverified: true }));
    this.last.set(name, Date.now());
  }
}

/** Compactions tried before a removal, to leave its own with nothing to do. */
const SETTLE_TRIES = 3;

/** Whether an optimize() compacted anything. */
function merged(stats: OptimizeStats): boolean {
  return (stats.compaction?.fragmentsRemoved ?? 0) > 0;
}
