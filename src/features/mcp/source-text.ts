/**
 * Spans of a source's extracted text, for the MCP `read` tool (docs/API.md, MCP).
 * Offsets are the ones search results carry (`start`, `end`), so an agent can widen
 * a hit. A text source's content is stored as sent, so its spans are exact; the
 * text of a file, url or api source is kept only in its indexed chunks, so its
 * spans are rebuilt from them: every chunk satisfies chunk.text ===
 * text.slice(start, end) and the chunks cover every non-whitespace character, so
 * only the whitespace between two chunks is unknown, and it is shown as spaces
 * (which keeps every offset right).
 */
import { sqlString } from "../../vectors/tables";
import { findDocument, findDocumentText } from "../../db/repo/documents";
import type { Collection } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import type { VectorStore } from "../../vectors/store";

/** The most characters one `read` returns; a model's context is the scarce thing. */
export const READ_MAX_CHARS = 8000;

/** One span of a source's text. */
export interface SourceSpan {
  sourceId: string;
  sourceName: string;
  start: number;
  end: number;
  /** Characters in the whole text (for a rebuilt text: up to the end of its last chunk). */
  length: number;
  /** Whether text goes on after `end`. */
  more: boolean;
  /** True when rebuilt from the indexed chunks (whitespace between chunks shown as spaces). */
  rebuilt: boolean;
  text: string;
}

/** Reads spans of the sources of one collection; another collection's source is not found. */
export class SourceReader {
  constructor(
    private readonly db: Store,
    private readonly store: VectorStore,
  ) {}

  /** The ids of the sources with a chunk `access` lets through; null when it lets everything through. */
  async visibleSources(collection: Collection, access: string | null): Promise<Set<string> | null> {
    if (access === null) return null;
    return new Set((await this.store.documentCounts(collection.id, collection.activeGeneration, access)).keys());
  }

  private async visible(collection: Collection, documentId: string, access: string | null): Promise<boolean> {
    if (access === null) return true;
    const where = `(${access}) AND document_id = ${sqlString(documentId)}`;
    return (await this.store.documentCounts(collection.id, collection.activeGeneration, where)).size > 0;
  }

  /**
   * Characters [start, end) of a source, at most READ_MAX_CHARS; `end` defaults to as far as
   * that allows. A source the caller may not see (`access`, keys/access.ts) is not found.
   */
  async read(
    collection: Collection,
    sourceId: string,
    start = 0,
    end?: number,
    access: string | null = null,
  ): Promise<SourceSpan> {
    const doc = await findDocument(this.db.reader, collection.id, sourceId);
    if (!doc || !(await this.visible(collection, doc.id, access))) throw notFound("source");
    if (end !== undefined && end <= start) {
      throw new AppError("invalid_request", `end: must be greater than start (${start})`);
    }
    const stored = await findDocumentText(this.db.reader, doc.id);
    const last = Math.min(end ?? Number.POSITIVE_INFINITY, start + READ_MAX_CHARS);
    let length: number;
    let text: string;
    if (stored !== null) {
      length = stored.length;
      text = stored.slice(start, last);
    } else {
      const found = await this.store.documentChunks(collection.id, collection.activeGeneration, doc.id, start, last);
      if (found.extent === 0) {
        throw new AppError("invalid_request", `source ${doc.id} has no indexed text yet (status: ${doc.status})`);
      }
      length = found.extent;
      text = stitch(found.chunks, start, Math.min(last, length));
    }
    if (start >= length && length > 0) {
      throw new AppError("invalid_request", `start: ${start} is beyond the end of the source (${length} characters)`);
    }
    const stop = Math.min(last, length);
    return {
      sourceId: doc.id,
      sourceName: doc.name,
      start,
      end: stop,
      length,
      more: stop < length,
      rebuilt: stored === null,
      text,
    };
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
