/**
 * A query's `expand` option (docs/API.md, Query, "Context around a hit"): the text
 * before and after each hit, read from the stored source by offsets (source-spans.ts,
 * the reader the MCP `read` tool uses, so both agree), never by a second search.
 *
 * - `{chars: N}` (1..5000): N characters each side, cut at the source's start and end.
 * - `{chunks: N}` (1..5): from the start of the N-th chunk before the hit to the end of
 *   the N-th chunk after it (chunks overlap, so the context starts where the earliest of
 *   them starts); each side is cut to EXPAND_MAX_SIDE characters.
 *
 * The context comes from the hit's own source, which the caller may see (the hit passed
 * its access rule), so no other source's text can leak through it.
 */
import type { Collection } from "../db/schema";
import type { ChunkOffsets } from "../vectors/document-reads";
import type { ExpandRequest } from "./request";
import type { SourceSpans } from "./source-spans";

/** The most characters one side of a context holds, whatever `chunks` asks. */
export const EXPAND_MAX_SIDE = 8000;

/** What surrounds a hit: `before` is source characters [start, hit start), `after` [hit end, end). */
export interface HitContext {
  before: string;
  after: string;
  start: number;
  end: number;
}

/** The hit fields expand reads. */
interface Hit {
  metadata: { sourceId: string; chunkIndex: number; start: number; end: number };
}

/** Each result with its `context`, in order; `chunks` reads the offsets around every hit in one read. */
export async function expandResults<R extends Hit>(
  results: R[],
  collection: Collection,
  expand: ExpandRequest,
  spans: SourceSpans,
): Promise<(R & { context: HitContext })[]> {
  const near = await nearChunks(results, collection, expand, spans);
  return Promise.all(
    results.map(async (r) => ({ ...r, context: await contextOf(r, collection, reach(r, expand, near), spans) })),
  );
}

async function contextOf(r: Hit, collection: Collection, wanted: { from: number; to: number }, spans: SourceSpans) {
  const { sourceId, start, end } = r.metadata;
  const from = Math.max(0, wanted.from, start - EXPAND_MAX_SIDE);
  const to = Math.min(wanted.to, end + EXPAND_MAX_SIDE);
  const span = await spans.read(collection, sourceId, from, to);
  const stop = Math.max(end, Math.min(to, span.length));
  return {
    before: span.text.slice(0, start - from),
    after: span.text.slice(end - from, stop - from),
    start: from,
    end: stop,
  };
}

/** With `chunks: N`, the offsets of the chunks N before to N after each hit, per source, read at once. */
async function nearChunks(results: Hit[], collection: Collection, expand: ExpandRequest, spans: SourceSpans) {
  const n = expand.chunks;
  if (expand.chars !== undefined || n === undefined || results.length === 0) return new Map<string, ChunkOffsets[]>();
  const ranges = results.map(({ metadata: m }) => ({
    documentId: m.sourceId,
    from: m.chunkIndex - n,
    to: m.chunkIndex + n,
  }));
  return spans.chunkOffsets(collection, ranges);
}

/** The characters the option asks for around a hit, before cutting. */
function reach(r: Hit, expand: ExpandRequest, near: Map<string, ChunkOffsets[]>) {
  const { sourceId, chunkIndex, start, end } = r.metadata;
  if (expand.chars !== undefined) return { from: start - expand.chars, to: end + expand.chars };
  const n = expand.chunks ?? 0;
  const around = (near.get(sourceId) ?? []).filter((c) => Math.abs(c.chunkIndex - chunkIndex) <= n);
  return {
    from: Math.min(start, ...around.map((c) => c.start)),
    to: Math.max(end, ...around.map((c) => c.end)),
  };
}
