/**
 * Spans of a source's extracted text by character offsets: what the MCP `read` tool
 * returns and what a query's `expand` option shows around a hit (docs/API.md), read
 * here only, so the two agree on every offset. A text source's content is stored as
 * sent, so its spans are exact; the text of a file, url or api source is kept only in
 * its indexed chunks, so its spans are rebuilt from them: every chunk satisfies
 * chunk.text === text.slice(start, end) and the chunks cover every non-whitespace
 * character, so only the whitespace between two chunks is unknown, and it is shown as
 * spaces (which keeps every offset right).
 */
import { findDocumentText } from "../db/repo/documents";
import type { Collection } from "../db/schema";
import type { Store } from "../db/store";
import type { ChunkRange } from "../vectors/document-reads";
import type { VectorStore } from "../vectors/store";

/** Characters of one source: `text` is [start, min(last, length)). */
export interface SpanText {
  text: string;
  /** Characters in the whole text (for a rebuilt text: up to the end of its last chunk); 0: no text yet. */
  length: number;
  /** True when rebuilt from the indexed chunks (whitespace between chunks shown as spaces). */
  rebuilt: boolean;
}

/** Reads spans of the sources of a collection's active generation. */
export class SourceSpans {
  constructor(
    private readonly db: Store,
    private readonly vectorStore: VectorStore,
  ) {}

  /** Characters [start, last) of the source `documentId` (last is cut to its length). */
  async read(collection: Collection, documentId: string, start: number, last: number): Promise<SpanText> {
    const stored = await findDocumentText(this.db.reader, documentId);
    if (stored !== null) return { text: stored.slice(start, last), length: stored.length, rebuilt: false };
    const g = collection.activeGeneration;
    const found = await this.vectorStore.documentChunks(collection.id, g, documentId, start, last);
    const text = found.extent === 0 ? "" : stitch(found.chunks, start, Math.min(last, found.extent));
    return { text, length: found.extent, rebuilt: true };
  }

  /** The offsets [start, end) of the chunks in each range of indexes, in the active generation, in one read: per source. */
  chunkOffsets(collection: Collection, ranges: ChunkRange[]) {
    return this.vectorStore.chunkOffsets(collection.id, collection.activeGeneration, ranges);
  }
}

/** Characters [from, to) from chunks sorted by start; gaps between chunks become spaces. */
export function stitch(chunks: { start: number; end: number; text: string }[], from: number, to: number): string {
  let out = "";
  let pos = from;
  for (const c of chunks) {
    const s = Math.max(c.start, pos);
    const e = Math.min(c.end, to);
    if (e <= s) continue;
    if (s > pos) out += " ".repeat(s - pos);
    out += c.text.slice(s - c.start, e - c.start);
    pos = e;
  }
  return pos < to ? out + " ".repeat(to - pos) : out;
}
