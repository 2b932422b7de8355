/**
 * Reads of one document's rows, or of every row's document, from an open table: the
 * counts reconciliation and the evaluation gate compare with SQLite, and the spans the
 * MCP `read` tool and a query's `expand` widen a hit with, and the metadata copies a
 * restricted caller's results are checked against (VectorStore.documentCounts,
 * documentChunks, chunkOffsets, labelCopies).
 */
import type { Table } from "@lancedb/lancedb";
import { type Data, DataType, makeVector } from "apache-arrow";
import { METADATA_COLUMN } from "./meta-index";
import { inList, sqlString } from "./tables";

/**
 * Rows per document id, reading only the document_id column. A document's rows lie
 * together, so ids are counted by runs of equal bytes and each run's id decoded once: at
 * 10,000,000 rows of 1,000,000 documents 5.3 s and 6.2 s of CPU, where decoding every
 * row's id took 7.3 s and 8.5 s (start-up reconciliation reads these, reconcile.ts).
 */
export async function countByDocument(table: Table): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const add = (id: string, n: number) => counts.set(id, (counts.get(id) ?? 0) + n);
  for await (const batch of table.query().select(["document_id"])) {
    for (const data of batch.getChild("document_id")!.data) {
      if (countRuns(data, add)) continue;
      const ids = makeVector(data);
      for (let i = 0; i < ids.length; i++) add(String(ids.get(i)), 1);
    }
  }
  return counts;
}

const decoder = new TextDecoder();

/** Counts a string column's runs of equal values into `add`; false for a column of another layout (or with nulls). */
function countRuns(data: Data, add: (id: string, n: number) => void): boolean {
  if (!(DataType.isUtf8(data.type) || DataType.isLargeUtf8(data.type)) || data.nullCount > 0) return false;
  const offsets = data.valueOffsets as Int32Array | BigInt64Array;
  const bytes = data.values as Uint8Array;
  const at = (i: number) => Number(offsets[i]);
  const same = (a: number, b: number): boolean => {
    const length = at(a + 1) - at(a);
    if (length !== at(b + 1) - at(b)) return false;
    for (let k = 0, x = at(a), y = at(b); k < length; k++) if (bytes[x + k] !== bytes[y + k]) return false;
    return true;
  };
  let run = 0;
  for (let i = 1; i <= data.length; i++) {
    if (i < data.length && same(i, i - 1)) continue;
    add(decoder.decode(bytes.subarray(at(run), at(run + 1))), i - run);
    run = i;
  }
  return true;
}

/** A document's chunks overlapping [from, to) in `table`, and how far its chunks reach. */
export async function readSpan(
  table: Table,
  documentId: string,
  from: number,
  to: number,
): Promise<{ chunks: { start: number; end: number; text: string }[]; extent: number }> {
  const where = `document_id = ${sqlString(documentId)}`;
  const rows = (await table.query().where(where).select(["start", "end"]).toArray()) as { end: number }[];
  const extent = rows.reduce((m, r) => Math.max(m, r.end), 0);
  const span = `${where} AND \`start\` < ${Math.trunc(to)} AND \`end\` > ${Math.trunc(from)}`;
  const chunks = (await table.query().where(span).select(["start", "end", "text"]).toArray()) as {
    start: number;
    end: number;
    text: string;
  }[];
  chunks.sort((a, b) => a.start - b.start);
  return { chunks: chunks.map((c) => ({ start: c.start, end: c.end, text: c.text })), extent };
}

/** Chunk indexes [from, to] of one document. */
export interface ChunkRange {
  documentId: string;
  from: number;
  to: number;
}

/** A chunk's index and offsets [start, end) in its source. */
export interface ChunkOffsets {
  chunkIndex: number;
  start: number;
  end: number;
}

/**
 * The offsets of the chunks in each range, in one read of the table (the b-tree on
 * document_id narrows it to the ranges' documents): per document id, by index.
 */
export async function readChunkOffsets(table: Table, ranges: ChunkRange[]): Promise<Map<string, ChunkOffsets[]>> {
  const out = new Map<string, ChunkOffsets[]>();
  if (ranges.length === 0) return out;
  const each = ranges.map(
    (r) =>
      `(document_id = ${sqlString(r.documentId)} AND chunk_index >= ${Math.trunc(r.from)} AND chunk_index <= ${Math.trunc(r.to)})`,
  );
  const where = `${inList("document_id", [...new Set(ranges.map((r) => r.documentId))])} AND (${each.join(" OR ")})`;
  const rows = (await table.query().where(where).select(["document_id", "chunk_index", "start", "end"]).toArray()) as {
    document_id: string;
    chunk_index: number;
    start: number;
    end: number;
  }[];
  for (const r of rows) {
    const offsets = { chunkIndex: Number(r.chunk_index), start: Number(r.start), end: Number(r.end) };
    const list = out.get(r.document_id);
    if (list) list.push(offsets);
    else out.set(r.document_id, [offsets]);
  }
  for (const list of out.values()) list.sort((a, b) => a.chunkIndex - b.chunkIndex);
  return out;
}

/** A document's chunks with chunk_index in [from, to]: index, offsets and text, by index. */
export async function readChunkTexts(
  table: Table,
  documentId: string,
  from: number,
  to: number,
): Promise<{ chunkIndex: number; start: number; end: number; text: string }[]> {
  const where = `document_id = ${sqlString(documentId)} AND chunk_index >= ${Math.trunc(from)} AND chunk_index <= ${Math.trunc(to)}`;
  const rows = (await table.query().where(where).select(["chunk_index", "start", "end", "text"]).toArray()) as {
    chunk_index: number;
    start: number;
    end: number;
    text: string;
  }[];
  return rows
    .map((r) => ({ chunkIndex: Number(r.chunk_index), start: Number(r.start), end: Number(r.end), text: r.text }))
    .sort((a, b) => a.chunkIndex - b.chunkIndex);
}

/**
 * The distinct metadata copies (meta-index.ts, the `metadata` column) the rows of each of
 * `documentIds` carry, of those `where` keeps when given, read in lists of 100 ids; a
 * document without such rows has none.
 */
export async function readLabelCopies(
  table: Table,
  documentIds: string[],
  where?: string,
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (let i = 0; i < documentIds.length; i += 100) {
    const ids = inList("document_id", documentIds.slice(i, i + 100));
    const q = table
      .query()
      .where(where ? `(${ids}) AND (${where})` : ids)
      .select(["document_id", METADATA_COLUMN]);
    for await (const batch of q) {
      const ids = batch.getChild("document_id")!;
      const copies = batch.getChild(METADATA_COLUMN)!;
      for (let r = 0; r < ids.length; r++) {
        const id = ids.get(r) as string;
        const set = out.get(id) ?? new Set<string>();
        set.add(String(copies.get(r)));
        out.set(id, set);
      }
    }
  }
  return out;
}
