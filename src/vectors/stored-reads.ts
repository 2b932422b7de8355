/**
 * Reads of the stored rows that are not searches (VectorStore inherits them): tables and
 * their statistics, rows per document, a document's chunks and offsets, the metadata
 * copies a restricted caller's results are checked against, facet counts. Each reads one
 * generation table through the cache's hold (a table dropped meanwhile answers empty).
 */
import type { Table } from "@lancedb/lancedb";
import {
  type ChunkOffsets,
  type ChunkRange,
  countByDocument,
  readChunkOffsets,
  readChunkTexts,
  readLabelCopies,
  readSpan,
} from "./document-reads";
import { countTerms, type TermCounts } from "./facet-counts";
import { readTableStats, type TableStats } from "./stats";
import { parseTableName, type TableCache, tableName } from "./tables";
import type { TableWriter } from "./writer";

export abstract class StoredReads {
  protected constructor(
    protected readonly tables: TableCache,
    protected readonly writer: TableWriter,
  ) {}

  /** Every store table with its collection id (lower-case, dashed) and generation. */
  async listTables(): Promise<{ collectionId: string; generation: number; name: string }[]> {
    return (await this.tables.names()).map(parseTableName).filter((t) => t !== null);
  }

  /** Row counts and index state of every table (stats.ts), for /metrics. */
  tableStats(): Promise<TableStats[]> {
    return readTableStats(this.tables);
  }

  /** Rows per document id in one table, reading only the document_id column. */
  async documentCounts(collectionId: string, generation: number): Promise<Map<string, number>> {
    return (await this.tables.hold(tableName(collectionId, generation), countByDocument)) ?? new Map();
  }

  /**
   * The metadata copies each document's rows carry, of the rows `where` keeps when given
   * (document-reads.ts, readLabelCopies); empty when the table does not exist.
   */
  async labelCopies(
    collectionId: string,
    generation: number,
    documentIds: string[],
    where?: string,
  ): Promise<Map<string, Set<string>>> {
    if (documentIds.length === 0) return new Map();
    const name = tableName(collectionId, generation);
    await this.writer.ensureMetadataColumn(name);
    return (await this.tables.hold(name, (t) => readLabelCopies(t, documentIds, where))) ?? new Map();
  }

  /** Rows in one table; 0 when it does not exist. */
  async countRows(collectionId: string, generation: number): Promise<number> {
    return (await this.tables.hold(tableName(collectionId, generation), (t) => t.countRows())) ?? 0;
  }

  /**
   * A document's chunks that overlap the characters [from, to), by position, and the
   * end of its last chunk (how far its indexed text reaches); none when it has no rows.
   */
  async documentChunks(
    collectionId: string,
    generation: number,
    documentId: string,
    from: number,
    to: number,
  ): Promise<{ chunks: { start: number; end: number; text: string }[]; extent: number }> {
    const span = (t: Table) => readSpan(t, documentId, from, to);
    return (await this.tables.hold(tableName(collectionId, generation), span)) ?? { chunks: [], extent: 0 };
  }

  /** A document's chunks with index in [from, to] (offsets and text), by index; none when it has no rows. */
  async chunkTexts(collectionId: string, generation: number, documentId: string, from: number, to: number) {
    const read = (t: Table) => readChunkTexts(t, documentId, from, to);
    return (await this.tables.hold(tableName(collectionId, generation), read)) ?? [];
  }

  /** The offsets of the chunks in each range, in one read: per document id, by index (none for a document without rows). */
  async chunkOffsets(collectionId: string, generation: number, ranges: ChunkRange[]) {
    const read = (t: Table) => readChunkOffsets(t, ranges);
    return (await this.tables.hold(tableName(collectionId, generation), read)) ?? new Map<string, ChunkOffsets[]>();
  }

  /** Counts of the metadata values of `keys` over the rows `where` keeps, at most `limit` rows (facet-counts.ts). */
  async termCounts(
    collectionId: string,
    generation: number,
    keys: string[],
    where: string | undefined,
    limit: number,
  ): Promise<TermCounts | null> {
    const name = tableName(collectionId, generation);
    return this.tables.hold(name, async (t) => {
      await this.writer.ensureMetadataColumn(name);
      return countTerms(t, keys, where, limit);
    });
  }

  /** The current version of one generation table; null when it does not exist. */
  tableVersion(collectionId: string, generation: number): Promise<number | null> {
    return this.tables.hold(tableName(collectionId, generation), (t) => t.version());
  }
}
