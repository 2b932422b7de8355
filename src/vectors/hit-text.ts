/**
 * The text of the hits a search keeps. Its ranking lists read no text (hits.ts,
 * LIST_COLUMNS), so the text, start and end of the topK kept are read here in one take
 * by LanceDB row id. Row ids move when a compaction rewrites the rows between the lists
 * and this read: a hit whose row id no longer names its chunk is read by its chunk id
 * instead (`id IN (…)`, the b-tree index), and one deleted meanwhile is left out. A hit
 * that carries its row's labels (TableSearch.labels) keeps its text only from a row with the
 * same labels: the read by chunk id applies no filter, and its row may have been written
 * since with labels the list never checked.
 */
import type { Table } from "@lancedb/lancedb";
import type { Table as ArrowTable } from "apache-arrow";
import { chunkId } from "./chunk-id";
import type { Ranked } from "./hits";
import { METADATA_COLUMN, sameChunkMetadata } from "./meta-index";
import { inList } from "./tables";

const TEXT_COLUMNS = ["document_id", "chunk_index", "text", "start", "end"];

interface ChunkText {
  text: string;
  start: number;
  end: number;
  labels?: string;
}

/** `hits` with their text, in order; those read by a list that had it (no row id) as they are. */
export async function withText<T extends Ranked>(table: Table, hits: T[]): Promise<T[]> {
  const bare = hits.filter((h) => h.rowId !== undefined);
  if (bare.length === 0) return hits;
  const columns = bare.some((h) => h.labels !== undefined) ? [...TEXT_COLUMNS, METADATA_COLUMN] : TEXT_COLUMNS;
  const take = table.takeRowIds(bare.map((h) => h.rowId!)).select(columns);
  // A row id past the table's rows (compacted away) fails the take: every hit is then read by chunk id.
  const found = textsOf(await take.toArrow().catch(() => null));
  const moved = bare.filter((h) => !found.has(h.id)).map((h) => h.id);
  if (moved.length) {
    const again = await table.query().where(inList("id", moved)).select(columns).toArrow();
    for (const [id, t] of textsOf(again)) found.set(id, t);
  }
  return hits.flatMap((h) => {
    if (h.rowId === undefined) return [h];
    const t = found.get(h.id);
    return t && sameLabels(h, t) ? [{ ...h, text: t.text, start: t.start, end: t.end, rowId: undefined }] : [];
  });
}

/** Whether the row read for a hit carries the labels its list read (always, for a hit without labels). */
function sameLabels(h: Ranked, t: ChunkText): boolean {
  return h.labels === undefined || (t.labels !== undefined && sameChunkMetadata(t.labels, h.labels));
}

/** Each row's text, by chunk id. */
function textsOf(rows: ArrowTable | null): Map<string, ChunkText> {
  const out = new Map<string, ChunkText>();
  if (!rows || rows.numRows === 0) return out;
  const col = (name: string) => rows.getChild(name)!.toArray();
  const [docs, indexes, texts, starts, ends] = TEXT_COLUMNS.map(col) as [
    string[],
    Int32Array,
    string[],
    Int32Array,
    Int32Array,
  ];
  const labels = rows.getChild(METADATA_COLUMN);
  for (let i = 0; i < rows.numRows; i++) {
    const t: ChunkText = { text: String(texts[i]), start: starts[i]!, end: ends[i]! };
    if (labels) t.labels = String(labels.get(i));
    out.set(chunkId(String(docs[i]), indexes[i]!), t);
  }
  return out;
}
