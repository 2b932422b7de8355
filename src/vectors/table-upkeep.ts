/**
 * Upkeep of written tables: compaction and index catch-up through optimize(), the
 * full-text and document-id indexes; the ANN index builds that follow a full pass are
 * ann-builds.ts's, and the limits below upkeep-limits.ts's.
 *
 * Rows not yet in the full-text index are tokenised again by every keyword search:
 * 20,000 such rows of 120 words made one take 6.5 s. So while ingestion runs and the
 * full pass waits for a quiet moment, catchUpTails() still catches up any table whose
 * full-text tail reached FTS_TAIL_ROWS, if it was searched in the last TAILS_SEARCHED_MS;
 * passes run one at a time, so the tail stays within what ingestion writes during one
 * catch-up. A table searched lately is kept far shorter (roomFor): its writes wait for
 * the catch-up. A table nobody searches (a bulk load) waits for the full pass: each
 * catch-up costs the whole table, and one every few seconds held a million-row load's
 * writes most of the time (docs/notes/2026-12-07-bulk-load.md).
 */
import { Index, type Table } from "@lancedb/lancedb";
import type { AnnProbes, VectorKind } from "./ann-probes";
import { AnnBuilds } from "./ann-builds";
import { ensureMetadataTermsIndex } from "./meta-terms-index";
import { inProcess, type IndexBuilder } from "./index-build";
import { retryOnConflict } from "./retry";
import { parseTableName, type TableCache } from "./tables";
import { ensureFtsIndex, type TableWriter, wordsColumn } from "./writer";
import { cleanupCutoff, NO_PRUNE, Pruning } from "./version-keep";
import { FTS_TAIL_ROWS, type Lease, SEARCH_TAIL_SHARE, SMALL_TABLE_ROWS } from "./upkeep-limits";

type Log = (msg: string, fields?: object) => void;
const alone: Lease = (_name, fn) => fn();

/** How old versions are kept (version-keep.ts), and below how many rows a search catches the tail up first. */
export interface UpkeepSettings {
  keepMs?: number;
  pruneEveryMs?: number;
  /** SMALL_TABLE_ROWS by default; 0 never. */
  smallTableRows?: number;
}

export class TableUpkeep {
  private running: Promise<void> | null = null;
  /** The pass that follows the running one, for calls made while it runs. */
  private next: Promise<void> | null = null;
  /** ANN builds run apart from passes: a build takes minutes, and tail catch-ups must not wait for it. */
  private readonly ann: AnnBuilds;
  /** The first pass covers every table: writes before a restart were never maintained. */
  private firstPass = true;
  /** Each table's rows at its last upkeep: an index far smaller than its table probes less (ann-probes.ts). */
  private readonly rows = new Map<string, number>();
  /** When each table's old versions are removed (version-keep.ts). */
  private readonly pruning: Pruning;
  /** The catch-up under way of each searched table whose writes or searches wait for it (roomFor, beforeSearch). */
  private readonly catchingUp = new Map<string, Promise<boolean>>();
  private readonly smallTableRows: number;

  constructor(
    private readonly tables: TableCache,
    private readonly writer: TableWriter,
    annThreshold: number,
    private readonly log: Log,
    private readonly tailRows = FTS_TAIL_ROWS,
    /** Where ANN indexes are trained (index-build.ts); the server trains them in a child process. */
    build: IndexBuilder = inProcess,
    private readonly lease: Lease = alone,
    settings: UpkeepSettings = {},
  ) {
    this.ann = new AnnBuilds(tables, writer, annThreshold, log, build, lease);
    this.pruning = new Pruning(settings.keepMs, settings.pruneEveryMs);
    this.smallTableRows = settings.smallTableRows ?? SMALL_TABLE_ROWS;
  }

  /**
   * One upkeep pass over the tables written since the last, then their ANN builds. The
   * pass starts after this call: a pass already under way may have read the tables before
   * the caller's writes, so one more follows it, shared by every call made meanwhile.
   */
  upkeep(): Promise<void> {
    if (this.running !== null) {
      this.next ??= this.running
        .catch(() => undefined)
        .then(() => {
          this.next = null;
          return this.upkeep();
        });
      return this.next;
    }
    this.running = this.pass(null).finally(() => (this.running = null));
    return this.running.then(() => this.ann.pending ?? undefined);
  }

  /**
   * Catches up only the written tables whose full-text tail reached the limit, of those
   * `searched` says were searched lately; the rest wait for upkeep().
   */
  catchUpTails(searched: (name: string) => boolean = () => true): Promise<void> {
    this.running ??= this.pass(searched).finally(() => (this.running = null));
    return this.running;
  }

  /**
   * Rows a searched table may take in its next commit so that its full-text tail stays
   * within `bound`: a tail at half of it or more is caught up first (one catch-up of a
   * table at a time; the writes wait for it). Unbounded while the table's ANN index
   * trains (a compaction would cost the training its commit) or when the catch-up failed.
   * `caughtUp` when this call waited for a catch-up.
   */
  async roomFor(name: string, bound: number): Promise<{ room: number; caughtUp: boolean }> {
    if (this.writer.tailRows(name) * 2 < bound)
      return { room: Math.max(1, bound - this.writer.tailRows(name)), caughtUp: false };
    if (name === this.ann.training) return { room: Number.POSITIVE_INFINITY, caughtUp: false };
    if (!(await this.sharedCatchUp(name))) return { room: Number.POSITIVE_INFINITY, caughtUp: false };
    return { room: Math.max(1, bound - this.writer.tailRows(name)), caughtUp: true };
  }

  /**
   * Before a search of a table of fewer than SMALL_TABLE_ROWS rows, as far as this process
   * knows (`probesFor` has read them): catches up the full-text tail this process wrote, if
   * it is SEARCH_TAIL_SHARE of them or more.
   * LanceDB scores an indexed row by the index's statistics and a row outside it by the
   * unindexed rows' own, so right after a pipeline's first document made the index, a word
   * of that document found in every indexed row weighed a tenth of the same word in the
   * documents written after it (test/small-tail.test.ts); upkeep's next pass comes only
   * once ingestion has been quiet a few seconds. A larger table's catch-up costs more than a
   * query should wait; its tail is scored as tail-scores.ts says.
   */
  async beforeSearch(name: string): Promise<void> {
    const tail = this.writer.tailRows(name);
    const rows = this.rows.get(name);
    if (rows === undefined || tail === 0 || tail < rows * SEARCH_TAIL_SHARE) return;
    if (rows + tail >= this.smallTableRows || name === this.ann.training) return;
    // The catch-up runs in the write queue: while a backup holds it (and searches inside the
    // backup's snapshot), waiting for one would wait for the backup, which waits for the search.
    // (A search that began waiting before the pause waits for it to end; the backup does not
    // wait for that search.) Not raced with a timer: a catch-up left running on its own
    // outlived the store's close on a slow bucket and crashed the process.
    if (this.writer.queues.paused) return;
    await this.sharedCatchUp(name);
  }

  /** The catch-up of `name` under way, or a new one; whether it caught the table up. */
  private sharedCatchUp(name: string): Promise<boolean> {
    let catchUp = this.catchingUp.get(name);
    if (!catchUp) {
      catchUp = this.catchUpNow(name).finally(() => this.catchingUp.delete(name));
      this.catchingUp.set(name, catchUp);
    }
    return catchUp;
  }

  /** Whether an ANN index is being trained now. */
  get building(): boolean {
    return this.ann.building;
  }

  /** IVF probe settings for a table of vectors of `kind` (ann-builds.ts), for its rows as far as upkeep knows. */
  async probesFor(name: string, table: Table, kind?: VectorKind): Promise<AnnProbes | null> {
    if (!this.rows.has(name)) {
      const rows = await table.countRows();
      if (!this.rows.has(name)) this.rows.set(name, rows);
    }
    return this.ann.probesFor(name, table, kind, this.rows.get(name)!);
  }

  /**
   * Whether keyword searches of the table should leave out the rows outside its full-text
   * index: while its ANN index trains, upkeep catches up neither index (a compaction would
   * cost the training its commit), and once the tail reaches the catch-up limit, tokenising
   * it again in every search costs seconds (a vector search still reads those rows). So
   * also for any table whose tail written by this process reached the limit, until a
   * catch-up takes it: a table loaded while nobody searched it waits for the full pass, a
   * searched one rests from catch-ups (write-pacing.ts).
   */
  indexedTextOnly(name: string): boolean {
    return this.ann.trainsWithLongTail(name) || this.writer.tailRows(name) >= this.tailRows;
  }

  /** Forgets cached index facts of dropped tables. */
  forget(dropped: (name: string) => boolean): void {
    this.ann.forget(dropped);
    for (const name of [...this.rows.keys()]) if (dropped(name)) this.rows.delete(name);
  }

  /** A full pass (null), or one of the tails of the tables `tails` picks. */
  private async pass(tails: ((name: string) => boolean) | null): Promise<void> {
    const tailsOnly = tails !== null;
    const dirty = this.writer.takeDirty();
    const names =
      this.firstPass && !tailsOnly
        ? [...new Set([...dirty, ...(await this.tables.names()).filter((n) => parseTableName(n))])]
        : dirty;
    if (!tailsOnly) this.firstPass = false;
    const built: string[] = [];
    for (const name of names) {
      try {
        // Compaction during a training run preempts the new index's commit (a retryable conflict
        // that restarts the training): the table waits for the build to end instead.
        if (name === this.ann.training) {
          // No catch-up until the training ends: past the limit, keyword searches leave the tail out.
          // (The training may end during the look: its end cleared the flag for good.)
          if (tailsOnly) this.ann.sawTail(name, await this.tailReached(name));
          this.writer.markDirty(name);
          continue;
        }
        if (tailsOnly && !(tails(name) && (await this.tailReached(name)))) {
          this.writer.markDirty(name);
          continue;
        }
        if ((await this.upkeepTable(name)) && !tailsOnly) built.push(name);
        // A table caught up still owes the full pass its ANN check.
        if (tailsOnly) this.writer.markDirty(name);
      } catch (err) {
        this.writer.markDirty(name);
        this.log("vector table upkeep failed", { table: name, error: String(err) });
      }
    }
    if (built.length) this.ann.start(built);
  }

  /** A catch-up of one table outside the passes; it still owes the next full pass its ANN check. */
  private async catchUpNow(name: string): Promise<boolean> {
    try {
      return await this.upkeepTable(name);
    } catch (err) {
      this.log("vector table upkeep failed", { table: name, error: String(err) });
      return false;
    } finally {
      this.writer.markDirty(name);
    }
  }

  private async tailReached(name: string): Promise<boolean> {
    const indices = await this.tables.hold(name, (table) => table.listIndices());
    const column = wordsColumn(indices ?? []);
    const fts = indices?.find((i) => i.columns.includes(column) && i.indexType === "FTS");
    return (fts?.numUnindexedRows ?? 0) >= this.tailRows;
  }

  /** Whether the table was compacted (false: it is gone, or another replica maintains it now). */
  private async upkeepTable(name: string): Promise<boolean> {
    const done = await this.lease(`upkeep:${name}`, () => this.compact(name));
    // Another replica maintains it now: this one's writes are looked at again next pass.
    if (done === undefined) this.writer.markDirty(name);
    return done ?? false;
  }

  /**
   * Compacts every table (but one training its ANN index here) and removes the objects no
   * version of it names that were written before `before`: files of a write whose writer
   * was killed before its commit. LanceDB leaves such files a week (they may belong to a
   * write in flight); `before` must leave them longer than any write takes, its ANN
   * builds included (UNNAMED_GRACE_MS). How many tables were swept.
   */
  async removeUnnamed(before: Date): Promise<number> {
    let swept = 0;
    for (const name of (await this.tables.names()).filter((n) => parseTableName(n))) {
      if (name === this.ann.training) continue;
      try {
        if (await this.lease(`upkeep:${name}`, () => this.compact(name, before))) swept++;
      } catch (err) {
        this.log("could not remove a table's unnamed files", { table: name, error: String(err) });
      }
    }
    return swept;
  }

  /**
   * Compaction and index catch-up, then, when due, the removal of old versions; with
   * `unnamedBefore`, of the versions and unnamed objects older than it (version-keep.ts).
   * Inside the queue, optimize never races this process's deletes and appends.
   */
  private compact(name: string, unnamedBefore?: Date): Promise<boolean> {
    return this.writer.exclusive(name, async () => {
      const t = await this.tables.get(name);
      if (!t) return false;
      const pinned = this.tables.pins.of(name);
      // Read before this pass commits anything: the version searches may be reading now.
      const cutoff = unnamedBefore
        ? await cleanupCutoff(t, unnamedBefore, { pinned, current: false })
        : await this.pruning.planned(name, t, pinned);
      await ensureFtsIndex(t);
      await ensureScalarIndexes(t);
      await ensureMetadataTermsIndex(t);
      const stats = await retryOnConflict(() => t.optimize({ cleanupOlderThan: NO_PRUNE }));
      // In the queue: no write came between, so every row is in the indexes now.
      this.writer.tailIndexed(name);
      // optimize() folded the new rows into the serving index's partitions.
      this.rows.set(name, await t.countRows());
      if (unnamedBefore) await this.pruning.sweep(name, t, cutoff!);
      else if (cutoff) await this.pruning.prune(name, t, cutoff, stats);
      return true;
    });
  }
}

/**
 * B-tree indexes on document_id (the `document_id IN (…)` deletes and search filters)
 * and id (hybrid's keyword lookup of the chunks only the vector list found, narrowed
 * by id: 7.3 → 2.9 ms at 20,000 rows; and the writer's replays by row id).
 */
async function ensureScalarIndexes(table: Table): Promise<void> {
  const indexed = new Set((await table.listIndices()).flatMap((i) => i.columns));
  for (const column of ["document_id", "id"])
    if (!indexed.has(column)) await table.createIndex(column, { config: Index.btree(), replace: false });
}
