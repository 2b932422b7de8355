/**
 * The vector store the ingestion engine writes to and the query endpoint reads
 * from: one LanceDB table per collection and index generation (see tables.ts),
 * written through per-table serial queues (writer.ts), searched in search.ts, read
 * otherwise through stored-reads.ts, and kept compact and indexed by upkeep() (table-upkeep.ts).
 *
 * Dropped collections are remembered for the life of the process: a write queued
 * after dropCollection() is skipped, so it cannot recreate a table. Generations are
 * not remembered: a caller that drops a generation must stop writing to it (the
 * ingestion sink checks before each write); writes queued before the drop finish first.
 */
import { Semaphore } from "../tools/semaphore";
import { type LanceConnection, onObjectStore } from "./connection";
import { tokenizerTwin } from "./tokenizer-twin";
import type { ExactFilterLimits } from "./exact-filter";
import { ANN_THRESHOLD } from "./ann";
import type { IndexBuilder } from "./index-build";
import { TableUpkeep } from "./table-upkeep";
import { FTS_TAIL_ROWS, type Lease, TAILS_SEARCHED_MS } from "./upkeep-limits";
import type { MetadataLookup } from "./metadata-column";
import { finishHits, type SearchOptions, searchTable, type StoredHit, type TableSearch } from "./search";
import type { Table } from "@lancedb/lancedb";
import { StoredReads } from "./stored-reads";
import { readChunkRows, collectionPrefix, TableCache, tableName, type ChunkRow } from "./tables";
import { batchable, VectorBatches } from "./vector-batch";
import { TableWriter, type WriteOptions } from "./writer";
import { WritePacing } from "./write-pacing";

export type { ChunkRow } from "./tables";
export type { SearchMode, StoredHit, TableSearch } from "./search";
export type { WriteOptions } from "./writer";
export type { MetadataLookup } from "./metadata-column";
export type { TableStats } from "./stats";

/**
 * Table searches that run at once; the rest wait their turn. A search without an ANN
 * index reads every vector of the table (and a keyword search every row not yet in the
 * full-text index), tens of MB each on a table of 35,000 chunks: 48 vector clients
 * asking at once while 150 sources of 150 KB were ingested took the server to 2.2 GB,
 * 620 MB with 4 at a time (bench/memory-load.ts). Searches are CPU-bound: more at once
 * only adds memory, while 2 at a time answered a third fewer queries on 2 cores.
 */
export const SEARCH_CONCURRENCY = 4;

export interface VectorStoreOptions {
  /** Rows after which upkeep() builds an ANN index on a table (default ANN_THRESHOLD). */
  annThreshold?: number;
  /** Full-text tail (unindexed rows) at which catchUpTails() catches a table up (default FTS_TAIL_ROWS). */
  ftsTailRows?: number;
  /** Full-text tail a searched table keeps within (default SEARCHED_TAIL_ROWS). */
  searchedTailRows?: number;
  /** How many times as long as its last catch-up a searched table rests from them (write-pacing.ts; default 1, 0 never). */
  searchedRest?: number;
  /** Table searches that may run at once (default SEARCH_CONCURRENCY). */
  searchConcurrency?: number;
  log?: (msg: string, fields?: object) => void;
  /** Each document's metadata in its index form (meta-index.ts), read when its rows are written. */
  metadataOf?: MetadataLookup;
  /** Where ANN indexes are trained (index-build.ts; default: in this process). */
  indexBuilder?: IndexBuilder;
  /** Which filters are narrow enough to search exactly (exact-filter.ts; default EXACT_FILTER). */
  exactFilter?: ExactFilterLimits;
  /** Told when a search's lexical candidates failed and its index answered alone. */
  onLexicalError?: (err: unknown) => void;
  /** Replicas: one process at a time maintains a table (table-upkeep.ts). */
  upkeepLease?: Lease;
  /** Replicas: other processes write the same tables (writer.ts). */
  sharedTables?: boolean;
  /** The share of time commits may take while searches wait (write-pacing.ts; default WRITE_SHARE). */
  writeShare?: number;
  /** How long old table versions are kept (version-keep.ts; default KEEP_VERSIONS_MS). */
  keepVersionsMs?: number;
  /** How often a table's old versions are removed at most (version-keep.ts; default PRUNE_EVERY_MS). */
  pruneVersionsEveryMs?: number;
  /** Below this many rows a search catches up the full-text tail first (table-upkeep.ts; default SMALL_TABLE_ROWS, 0 never). */
  smallTableRows?: number;
}

export class VectorStore extends StoredReads {
  private readonly tableUpkeep: TableUpkeep;
  private readonly indexBuilder: IndexBuilder | undefined;
  private readonly searches: Semaphore;
  /** Unfiltered vector searches waiting for a turn share one LanceDB query (vector-batch.ts). */
  private readonly batches: VectorBatches;
  private readonly searchOptions: SearchOptions;
  /** How writes give way to searches (write-pacing.ts). */
  private readonly pacing: WritePacing;
  /** Searches and writes since the last takeActivity(), counted as they end. */
  private activity = 0;
  /** When the last chunk write ended (ms since the epoch): upkeep's sign of ingestion between its ticks. */
  lastWriteAt = Number.NEGATIVE_INFINITY;
  /** Replicas: other processes write and search the same tables. */
  private readonly sharedTables: boolean;

  constructor(conn: LanceConnection, opts: VectorStoreOptions = {}) {
    const log = opts.log ?? (() => {});
    const tables = new TableCache(conn);
    super(tables, new TableWriter(tables, log, opts.metadataOf, opts.sharedTables));
    this.sharedTables = opts.sharedTables === true;
    this.tableUpkeep = new TableUpkeep(
      this.tables,
      this.writer,
      opts.annThreshold ?? ANN_THRESHOLD,
      log,
      opts.ftsTailRows ?? FTS_TAIL_ROWS,
      opts.indexBuilder,
      opts.upkeepLease,
      { keepMs: opts.keepVersionsMs, pruneEveryMs: opts.pruneVersionsEveryMs, smallTableRows: opts.smallTableRows },
    );
    this.indexBuilder = opts.indexBuilder;
    this.searches = new Semaphore(opts.searchConcurrency ?? SEARCH_CONCURRENCY);
    this.pacing = new WritePacing(
      this.searches,
      this.tableUpkeep,
      opts.searchedTailRows,
      opts.writeShare,
      opts.searchedRest,
    );
    this.batches = new VectorBatches(this.searches);
    this.searchOptions = {
      exactFilter: opts.exactFilter,
      onLexicalError: opts.onLexicalError,
      // A table's own tokenizer is read from the bucket on every call there.
      tokenize: onObjectStore(conn) ? tokenizerTwin() : undefined,
    };
  }

  /** The table name of a collection generation: `c_<uuid without dashes>_g<generation>`. */
  static tableName(collectionId: string, generation: number): string {
    return tableName(collectionId, generation);
  }

  /**
   * Deletes the rows of `documentIds`, then appends `rows`, in the table's serial
   * queue (a document given new rows that has rows stored is replaced in one commit, so it
   * is never missing; writer.ts first reads which have rows, as a merge reads the whole
   * table); creates the table on first write. An appended row whose document is not
   * in `documentIds` (a later batch of a long document) replaces any stored row
   * with its id, so a replayed write still leaves one copy of each row. That costs a
   * scan of the table; a caller that knows those rows cannot be stored yet says
   * `appendedAreNew` and skips it.
   */
  replaceDocuments(
    collectionId: string,
    generation: number,
    documentIds: string[],
    rows: ChunkRow[],
    opts: WriteOptions = {},
  ): Promise<void> {
    const started = performance.now();
    const name = tableName(collectionId, generation);
    return this.writer.replaceDocuments(name, documentIds, rows, opts).finally(() => {
      this.activity++;
      this.lastWriteAt = Date.now();
      this.pacing.committed(name, performance.now() - started);
    });
  }

  /**
   * Rows the table may take in its next commit; the ingestion sink waits for this before
   * each (write-pacing.ts): unbounded and at once unless the table is searched (its
   * full-text tail is kept short) or searches wait for a turn (commits take a share of the time).
   */
  writeRoom(collectionId: string, generation: number): Promise<number> | number {
    return this.pacing.writeRoom(tableName(collectionId, generation));
  }

  /** Whether table searches wait for a turn, or did a moment ago (write-pacing.ts). */
  get queriesWaiting(): boolean {
    return this.pacing.queriesWaiting;
  }

  /** Removes a document's rows from every generation table of the collection. */
  deleteDocument(collectionId: string, documentId: string): Promise<void> {
    return this.writer.deleteDocument(collectionId, documentId);
  }

  /** Rewrites a document's (or many's) metadata in its rows of every generation, keeping their vectors (no re-embedding). */
  rewriteMetadata(collectionId: string, documentId: string | string[]): Promise<void> {
    return this.writer.rewriteMetadata(collectionId, documentId);
  }

  /** Drops one generation's table once the writes queued for it have run. */
  async dropGeneration(collectionId: string, generation: number): Promise<void> {
    const name = tableName(collectionId, generation);
    await this.writer.dropTable(name);
    this.tableUpkeep.forget((n) => n === name);
    this.pacing.forget((n) => n === name);
  }

  /** Drops every generation of a collection, after its queued writes; later writes to it are skipped. */
  async dropCollection(collectionId: string): Promise<void> {
    await this.writer.dropCollection(collectionId);
    this.tableUpkeep.forget((name) => name.startsWith(collectionPrefix(collectionId)));
    this.pacing.forget((name) => name.startsWith(collectionPrefix(collectionId)));
  }

  /** Searches one generation table; [] when it does not exist. Scores are documented in search.ts. */
  async search(collectionId: string, generation: number, req: TableSearch): Promise<StoredHit[]> {
    const name = tableName(collectionId, generation);
    this.pacing.searched(name);
    // A table dropped (its collection deleted) while the search ran has no rows to give.
    return (await this.tables.hold(name, (table) => this.searchOpen(name, table, req))) ?? [];
  }

  private async searchOpen(name: string, table: Table, req: TableSearch): Promise<StoredHit[]> {
    const probes = await this.tableUpkeep.probesFor(name, table, req.vectorKind);
    await this.tableUpkeep.beforeSearch(name);
    if (req.where) await this.writer.ensureMetadataColumn(name);
    const done = () => this.activity++;
    // A search joined with lexical candidates asks the full-text index its own question: it runs alone.
    if (batchable(req) && !probes?.lexical)
      return this.batches
        .search(name, table, req.vector, req.topK, probes)
        .then((h) => finishHits(h, req))
        .finally(done);
    // The table's state is read when the search's turn comes: a write may commit while it waits.
    const options = () => ({
      ...this.searchOptions,
      indexedTextOnly: this.tableUpkeep.indexedTextOnly(name),
      textTail: this.writer.mayHaveTail(name),
    });
    return this.searches.run(() => searchTable(table, req, probes, options())).finally(done);
  }

  /**
   * Runs `fn` while no table is written: writes queued meanwhile wait (searches go on).
   * A backup records each table's version and links its files then.
   */
  async frozen<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.writer.queues.pause();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** The current version of every store table, by name. */
  async tableVersions(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of await this.listTables()) {
      const version = await this.tables.hold(t.name, (table) => table.version());
      if (version !== null) out[t.name] = version;
    }
    return out;
  }

  /** Holds `version` of a generation's table from cleanups (version-keep.ts) until the returned function is called. */
  holdVersion(collectionId: string, generation: number, version: number): () => void {
    return this.tables.pins.pin(tableName(collectionId, generation), version);
  }

  /**
   * Every chunk of one generation as of `version`, in slices of `slice` rows (the
   * metadata column is left out: it is rebuilt from SQLite wherever the rows go). The
   * caller holds that version from cleanups (holdVersion) from when it read it.
   */
  async *readChunks(
    collectionId: string,
    generation: number,
    version: number,
    slice = 5000,
  ): AsyncGenerator<ChunkRow[]> {
    const table = await this.tables.openUncached(tableName(collectionId, generation));
    try {
      await table.checkout(version);
      yield* readChunkRows(table, slice);
    } finally {
      table.close();
    }
  }

  /** Table searches running now, and waiting for their turn. */
  get searchLoad(): { running: number; waiting: number } {
    return { running: this.searches.running, waiting: this.searches.queued };
  }

  /** Periodic upkeep of the tables written since the last call (all tables on the first call). */
  upkeep(): Promise<void> {
    return this.tableUpkeep.upkeep();
  }

  /** Removes the tables' objects no version names, written before `before` (TableUpkeep.removeUnnamed). */
  removeUnnamed(before: Date): Promise<number> {
    return this.tableUpkeep.removeUnnamed(before);
  }

  /** Whether an ANN index is being trained now (beside the serving one; searches do not wait for it). */
  get indexBuilding(): boolean {
    return this.tableUpkeep.building;
  }

  /**
   * While ingestion runs: catches up the full-text index of the written tables whose tail
   * grew long (table-upkeep.ts), of those searched lately and not resting from their last
   * catch-up (write-pacing.ts). Replicas catch up every such table: the searches of a
   * table this one writes may go to another replica, which counts no tail for its rows.
   */
  catchUpTails(): Promise<void> {
    const searched = (name: string) => this.sharedTables || this.pacing.searchedWithin(name, TAILS_SEARCHED_MS);
    return this.tableUpkeep.catchUpTails((name) => searched(name) && !this.pacing.resting(name));
  }

  /** Forgets what it read of every table's indexes: another replica may have rebuilt them. */
  forgetIndexFacts(): void {
    this.tableUpkeep.forget(() => true);
  }

  /** Whether a search or write ended since the last call. */
  takeActivity(): boolean {
    const any = this.activity > 0;
    this.activity = 0;
    return any;
  }

  /** Closes the open table handles; the connection belongs to the caller. */
  close(): void {
    this.indexBuilder?.stop?.();
    this.tables.closeAll();
  }
}
