/**
 * The vector store the ingestion engine writes to and the query endpoint reads
 * from: one LanceDB table per collection and index generation (see tables.ts),
 * written through per-table serial queues (writer.ts), searched in search.ts and
 * kept compact and indexed by maintain() (maintain.ts).
 *
 * Dropped collections are remembered for the life of the process: a write queued
 * after dropCollection() is skipped, so it cannot recreate a table. Generations are
 * not remembered: a caller that drops a generation must stop writing to it (the
 * ingestion sink checks before each write); writes queued before the drop finish first.
 */
import type { LanceConnection } from "./connection";
import { Maintainer } from "./maintain";
import type { MetadataLookup } from "./metadata-column";
import { searchTable, type StoredHit, type TableSearch } from "./search";
import { collectionPrefix, parseTableName, TableCache, tableName, type ChunkRow } from "./tables";
import { TableWriter, type WriteOptions } from "./writer";

export type { ChunkRow } from "./tables";
export type { SearchMode, StoredHit, TableSearch } from "./search";
export type { WriteOptions } from "./writer";
export type { MetadataLookup } from "./metadata-column";

export interface VectorStoreOptions {
  /** Rows after which maintain() builds an ANN index on a table. */
  annThreshold?: number;
  log?: (msg: string, fields?: object) => void;
  /** Each document's metadata in its index form (meta-index.ts), read when its rows are written. */
  metadataOf?: MetadataLookup;
}

export class VectorStore {
  private readonly tables: TableCache;
  private readonly writer: TableWriter;
  private readonly maintainer: Maintainer;

  constructor(conn: LanceConnection, opts: VectorStoreOptions = {}) {
    const log = opts.log ?? (() => {});
    this.tables = new TableCache(conn);
    this.writer = new TableWriter(this.tables, log, opts.metadataOf);
    this.maintainer = new Maintainer(this.tables, this.writer, opts.annThreshold ?? 100_000, log);
  }

  /** The table name of a collection generation: `c_<uuid without dashes>_g<generation>`. */
  static tableName(collectionId: string, generation: number): string {
    return tableName(collectionId, generation);
  }

  /**
   * Deletes the rows of `documentIds`, then appends `rows`, in the table's serial
   * queue; creates the table on first write. An appended row whose document is not
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
    return this.writer.replaceDocuments(tableName(collectionId, generation), documentIds, rows, opts);
  }

  /** Removes a document's rows from every generation table of the collection. */
  deleteDocument(collectionId: string, documentId: string): Promise<void> {
    return this.writer.deleteDocument(collectionId, documentId);
  }

  /** Rewrites a document's metadata in its rows of every generation, keeping their vectors (no re-embedding). */
  refreshMetadata(collectionId: string, documentId: string): Promise<void> {
    return this.writer.refreshMetadata(collectionId, documentId);
  }

  /** Drops one generation's table once the writes queued for it have run. */
  async dropGeneration(collectionId: string, generation: number): Promise<void> {
    const name = tableName(collectionId, generation);
    await this.writer.dropTable(name);
    this.maintainer.forget((n) => n === name);
  }

  /** Drops every generation of a collection, after its queued writes; later writes to it are skipped. */
  async dropCollection(collectionId: string): Promise<void> {
    await this.writer.dropCollection(collectionId);
    this.maintainer.forget((name) => name.startsWith(collectionPrefix(collectionId)));
  }

  /** Every store table with its collection id (lower-case, dashed) and generation. */
  async listTables(): Promise<{ collectionId: string; generation: number; name: string }[]> {
    return (await this.tables.names()).map(parseTableName).filter((t) => t !== null);
  }

  /** Rows per document id in one table, reading only the document_id column. */
  async documentCounts(collectionId: string, generation: number): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const table = await this.tables.get(tableName(collectionId, generation));
    if (!table) return counts;
    for await (const batch of table.query().select(["document_id"])) {
      const col = batch.getChild("document_id")!;
      for (let i = 0; i < col.length; i++) {
        const id = col.get(i) as string;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    }
    return counts;
  }

  /** Rows in one table; 0 when it does not exist. */
  async countRows(collectionId: string, generation: number): Promise<number> {
    const table = await this.tables.get(tableName(collectionId, generation));
    return table ? table.countRows() : 0;
  }

  /** Searches one generation table; [] when it does not exist. Scores are documented in search.ts. */
  async search(collectionId: string, generation: number, req: TableSearch): Promise<StoredHit[]> {
    const name = tableName(collectionId, generation);
    const table = await this.tables.get(name);
    if (!table) return [];
    if (req.where) await this.writer.ensureMetadataColumn(name);
    return searchTable(table, req, await this.maintainer.probesFor(name, table));
  }

  /** Periodic upkeep of the tables written since the last call (all tables on the first call). */
  maintain(): Promise<void> {
    return this.maintainer.maintain();
  }

  /** Closes the open table handles; the connection belongs to the caller. */
  close(): void {
    this.tables.closeAll();
  }
}
