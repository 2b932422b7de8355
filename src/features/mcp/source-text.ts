/**
 * The MCP `read` tool's spans of a source's text (docs/API.md, MCP): retrieval/source-spans.ts
 * reads them (exact for a text source, rebuilt from the chunks for the others), the same
 * reader a query's `expand` uses, so offsets agree with search results; this adds the
 * caller's access and the errors a tool call answers with.
 */
import { findDocument } from "../../db/repo/documents";
import type { Collection } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import { carriesCurrentLabels, currentLabels, type LabelledSource } from "../../retrieval/current-labels";
import { SourceSpans } from "../../retrieval/source-spans";
import type { VectorStore } from "../../vectors/store";

export { stitch } from "../../retrieval/source-spans";

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
  private readonly spans: SourceSpans;

  constructor(
    private readonly db: Store,
    private readonly vectorStore: VectorStore,
  ) {
    this.spans = new SourceSpans(db, vectorStore);
  }

  /**
   * The sources of `docs` a caller held to `access` is shown: those with a chunk `access`
   * lets through that carries the source's current labels (retrieval/current-labels.ts);
   * every one when `access` is null.
   */
  async shown<T extends LabelledSource>(collection: Collection, docs: T[], access: string | null): Promise<T[]> {
    if (access === null || docs.length === 0) return docs;
    const ids = docs.map((d) => d.id);
    // The labels of the rows the filter keeps, read by the read that applies it.
    const copies = await this.vectorStore.labelCopies(collection.id, collection.activeGeneration, ids, access);
    return docs.filter((d) => {
      const current = currentLabels(d);
      return [...(copies.get(d.id) ?? [])].some((copy) => carriesCurrentLabels(copy, current));
    });
  }

  private async visible(collection: Collection, doc: LabelledSource, access: string | null): Promise<boolean> {
    return (await this.shown(collection, [doc], access)).length > 0;
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
    if (!doc || !(await this.visible(collection, doc, access))) throw notFound("source");
    if (end !== undefined && end <= start) {
      throw new AppError("invalid_request", `end: must be greater than start (${start})`);
    }
    const last = Math.min(end ?? Number.POSITIVE_INFINITY, start + READ_MAX_CHARS);
    const { text, length, rebuilt } = await this.spans.read(collection, doc.id, start, last);
    if (rebuilt && length === 0) {
      throw new AppError("invalid_request", `source ${doc.id} has no indexed text yet (status: ${doc.status})`);
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
      rebuilt,
      text,
    };
  }
}
