/**
 * What was indexed of one source (docs/API.md, "Inspecting a source"): its chunks with their
 * offsets, page by page; spans of its extracted text (the MCP `read` tool's reader, so the two
 * agree on every offset); and its history, the newest of its events.
 */
import { eventsOfDocument } from "../../db/repo/events";
import { findDocument } from "../../db/repo/documents";
import type { Collection } from "../../db/schema";
import type { Store } from "../../db/store";
import { notFound } from "../../http/errors";
import { presentEvent } from "../../ingest/events";
import type { VectorStore } from "../../vectors/store";
import type { SourceReader } from "../mcp/source-text";

/** Events a source's history shows. */
export const HISTORY_EVENTS = 50;

export interface ChunkPage {
  chunks: { chunkIndex: number; start: number; end: number; text: string }[];
  page: number;
  pageSize: number;
  total: number;
}

export class SourceInspector {
  constructor(
    private readonly db: Store,
    private readonly vectorStore: VectorStore,
    private readonly reader: SourceReader,
  ) {}

  /** Chunks `(page−1)·pageSize … page·pageSize−1` of the source in the pipeline's active index, by index. */
  async chunks(collection: Collection, sourceId: string, page: number, pageSize: number): Promise<ChunkPage> {
    const doc = await this.source(collection, sourceId);
    const from = (page - 1) * pageSize;
    const rows = await this.vectorStore.chunkTexts(
      collection.id,
      collection.activeGeneration,
      doc.id,
      from,
      from + pageSize - 1,
    );
    return { chunks: rows, page, pageSize, total: doc.chunkCount };
  }

  /** Characters [start, end) of the source's extracted text (at most READ_MAX_CHARS), as MCP `read` gives them. */
  text(collection: Collection, sourceId: string, start: number, end?: number) {
    return this.reader.read(collection, sourceId, start, end);
  }

  /** The source's newest events, newest first. */
  async history(collection: Collection, sourceId: string) {
    const doc = await this.source(collection, sourceId);
    const rows = await eventsOfDocument(this.db.reader, collection.id, doc.id, HISTORY_EVENTS);
    return { events: rows.map(presentEvent) };
  }

  private async source(collection: Collection, sourceId: string) {
    const doc = await findDocument(this.db.reader, collection.id, sourceId);
    if (!doc) throw notFound("source");
    return doc;
  }
}
