/** Turns a stored document row into the public Source shape. */
import type { DocumentRow } from "../../db/schema";
import type { Source } from "./model";

/**
 * How much of a text source's content a response carries. Lists and pipeline
 * pages stay small however large the texts are; `contentLength` gives the size.
 */
export const CONTENT_PREVIEW_CHARS = 2000;

export function presentSource(d: DocumentRow): Source {
  const s: Source = {
    id: d.id,
    pipelineId: d.collectionId,
    type: d.type,
    name: d.name,
    status: d.status,
    error: d.error,
    chunkCount: d.chunkCount,
    progress: { done: d.progressDone, total: d.progressTotal },
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    indexedAt: d.indexedAt,
  };
  if (d.content !== null) {
    s.content = d.content.length > CONTENT_PREVIEW_CHARS ? d.content.slice(0, CONTENT_PREVIEW_CHARS) : d.content;
    s.contentLength = d.content.length;
  }
  if (d.url !== null) s.url = d.url;
  if (d.fileName !== null) s.fileName = d.fileName;
  if (d.fileSize !== null) s.fileSize = d.fileSize;
  return s;
}
