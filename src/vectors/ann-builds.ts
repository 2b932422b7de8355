/**
 * The ANN index builds of upkept tables (TableUpkeep hands them the tables a full pass
 * compacted): one build at a time, apart from the passes (a build takes minutes, and tail
 * catch-ups must not wait for it), the serving index of each table read once and then
 * kept up to date by the builds, and the probe settings searches take from it (ann.ts says
 * which index, and when it is retrained).
 */
import type { Table } from "@lancedb/lancedb";
import { annIndexFor, type AnnIndexInfo, needsIndex, vectorIndexes } from "./ann";
import { type AnnProbes, probesForRows, type VectorKind } from "./ann-probes";
import type { IndexBuilder } from "./index-build";
import { retryOnConflict } from "./retry";
import { type TableCache, vectorDim } from "./tables";
import type { Lease } from "./upkeep-limits";
import type { TableWriter } from "./writer";

type Log = (msg: string, fields?: object) => void;

export class AnnBuilds {
  private builds: Promise<void> | null = null;
  /** The table whose ANN index is being trained now. */
  private trainingName: string | null = null;
  /** The training table, once its full-text tail reached the limit (it is not caught up meanwhile). */
  private longTail: string | null = null;
  /** Each table's serving vector index (null: none), read once and then kept up to date by builds. */
  /** The index each table's first search prewarmed (prewarm). */
  private readonly prewarmed = new Map<string, string>();
  private readonly serving = new Map<string, Pick<AnnIndexInfo, "trainedRows" | "indexType"> | null>();

  constructor(
    private readonly tables: TableCache,
    private readonly writer: TableWriter,
    private readonly annThreshold: number,
    private readonly log: Log,
    /** Where ANN indexes are trained (index-build.ts); the server trains them in a child process. */
    private readonly build: IndexBuilder,
    private readonly lease: Lease,
  ) {}

  /** Whether an ANN index is being trained now. */
  get building(): boolean {
    return this.builds !== null;
  }

  /** The table whose ANN index is being trained now, if any. */
  get training(): string | null {
    return this.trainingName;
  }

  /** Whether `name` trains now and its full-text tail reached the limit meanwhile. */
  trainsWithLongTail(name: string): boolean {
    return this.longTail === name && this.trainingName === name;
  }

  /** What a tails pass saw of the training table's full-text tail (the training's end clears it for good). */
  sawTail(name: string, long: boolean): void {
    if (this.trainingName === name) this.longTail = long ? name : null;
  }

  /** The builds under way, if any (a full pass's caller waits for them). */
  get pending(): Promise<void> | null {
    return this.builds;
  }

  /**
   * IVF probe settings for a table of vectors of `kind` (ann-probes.ts), from its serving index,
   * read once and then cached; `rows` the table's rows as far as upkeep knows.
   */
  async probesFor(name: string, table: Table, kind: VectorKind | undefined, rows: number): Promise<AnnProbes | null> {
    let serving = this.serving.get(name);
    if (serving === undefined) {
      const read = await table.listIndices();
      // A build that committed while we looked has already recorded the newer answer.
      const found = vectorIndexes(read)[0];
      if (!this.serving.has(name)) this.serving.set(name, found ?? null);
      if (found) this.prewarm(name, table, found.name);
      serving = this.serving.get(name)!;
    }
    return serving ? probesForRows(serving.trainedRows, serving.indexType, kind, rows) : null;
  }

  /**
   * Reads a table's serving vector index into LanceDB's index cache, in the background, when
   * the table is first searched: queries read the partitions they probe from disk until they
   * are cached. At 10M rows (2,516 partitions, page cache emptied) the first 10 queries took
   * 312 ms p50 without, 72 ms with it (1.2 s of reading; docs/notes/2026-12-08-ten-million-queries.md).
   * An index larger than the cache (RAGD_INDEX_CACHE_MB) is read in vain, once.
   */
  private prewarm(name: string, table: Table, index: string): void {
    // Once an index: a replica forgets its index facts every upkeep step (upkeep.ts).
    if (this.prewarmed.get(name) === index) return;
    this.prewarmed.set(name, index);
    table
      .prewarmIndex(index)
      .catch((err: unknown) =>
        this.log("could not prewarm a vector index", { table: name, index, error: String(err) }),
      );
  }

  /** Forgets cached index facts of dropped tables. */
  forget(dropped: (name: string) => boolean): void {
    for (const name of [...this.serving.keys()]) if (dropped(name)) this.serving.delete(name);
  }

  /** ANN checks of the maintained tables, after any build already running; one build at a time. */
  start(tables: string[]): void {
    const chained: Promise<void> = (this.builds ?? Promise.resolve())
      .then(() => this.buildAll(tables))
      .finally(() => {
        if (this.builds === chained) this.builds = null;
      });
    this.builds = chained;
  }

  private async buildAll(tables: string[]): Promise<void> {
    for (const name of tables) {
      try {
        this.trainingName = name;
        // Outside the write queue, so the handle is held: a drop meanwhile closes it once the build ends.
        const mark = this.tables.dropMark(name);
        const built = await this.lease(`upkeep:${name}`, async () => {
          await this.tables.hold(name, (table) => this.maybeBuild(name, table));
          return true;
        });
        // The build's commit after a drop brought the dropped table's directory back: drop it again.
        if (this.tables.dropMark(name) !== mark) await this.writer.dropTable(name);
        if (!built) this.writer.markDirty(name);
      } catch (err) {
        this.writer.markDirty(name);
        this.log("vector index build failed", { table: name, error: String(err) });
      } finally {
        this.trainingName = null;
        this.longTail = null;
      }
    }
  }

  /**
   * Trains a new ANN index outside the write queue (training takes seconds to minutes
   * and writes should not wait), with the store's builder (index-build.ts), beside the serving one: searches keep using the old
   * index, or the exact path, until the new one commits; then the old one is dropped.
   * A commit lost to a concurrent write is retried.
   */
  private async maybeBuild(name: string, table: Table): Promise<void> {
    const existing = vectorIndexes(await table.listIndices());
    const rows = await table.countRows();
    if (rows < this.annThreshold) return;
    const dim = await vectorDim(table);
    const next = annIndexFor(rows, dim);
    if (!needsIndex(existing[0], rows, this.annThreshold, next.indexType)) return;
    const started = Date.now();
    this.log("building vector index", { table: name, rows, dim, replaces: existing[0]?.name ?? null });
    if (!existing.some((i) => i.name === next.name)) await this.build(table, name, rows);
    for (const old of existing) if (old.name !== next.name) await retryOnConflict(() => table.dropIndex(old.name));
    this.serving.set(name, { trainedRows: rows, indexType: next.indexType });
    this.log("vector index built", { table: name, rows, ms: Date.now() - started });
  }
}
