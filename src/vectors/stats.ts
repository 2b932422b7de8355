/**
 * Sizes and index state of the store's tables, for /metrics. Reads only table
 * metadata (the manifest's statistics, index lists and theirs), never rows.
 */
import type { Table } from "@lancedb/lancedb";
import { parseTableName, type TableCache } from "./tables";

export interface IndexState {
  /** The indexed column: vector, text (full-text) or document_id. */
  column: string;
  type: string;
  indexedRows: number;
  unindexedRows: number;
}

export interface TableStats {
  collectionId: string;
  generation: number;
  rows: number;
  /** Bytes of data and index files, from the manifest. */
  bytes: number;
  /** Fragments, and those small enough that the next compaction merges them. */
  fragments: number;
  smallFragments: number;
  indexes: IndexState[];
}

/** Every store table's size and indexes; a table dropped meanwhile is left out. */
export async function readTableStats(tables: TableCache): Promise<TableStats[]> {
  const out: TableStats[] = [];
  for (const name of await tables.names()) {
    const parsed = parseTableName(name);
    const stats = parsed ? await tables.hold(name, readStats) : null;
    if (parsed && stats) out.push({ collectionId: parsed.collectionId, generation: parsed.generation, ...stats });
  }
  return out;
}

async function readStats(table: Table): Promise<Omit<TableStats, "collectionId" | "generation">> {
  const indexes: IndexState[] = [];
  for (const idx of await table.listIndices()) {
    const s = await table.indexStats(idx.name);
    indexes.push({
      column: idx.columns[0] ?? idx.name,
      type: s?.indexType ?? idx.indexType,
      indexedRows: s?.numIndexedRows ?? 0,
      unindexedRows: s?.numUnindexedRows ?? 0,
    });
  }
  const stats = await table.stats();
  return {
    rows: stats.numRows,
    bytes: stats.totalBytes,
    fragments: stats.fragmentStats.numFragments,
    smallFragments: stats.fragmentStats.numSmallFragments,
    indexes,
  };
}
