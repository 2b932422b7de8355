/** Turns a stored document row into the public Source shape. */
import type { DocumentRow } from "../../db/schema";
import type { Source } from "./model";

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
  if (d.content !== null) s.content = d.content;
  if (d.url !== null) s.url = d.url;
  if (d.fileName !== null) s.fileName = d.fileName;
  if (d.fileSize !== null) s.fileSize = d.fileSize;
  return s;
}
