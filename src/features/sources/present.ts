/** Turns a stored document row into the public Source shape. */
import { parseStoredMetadata } from "../../core/metadata";
import { CONTENT_PREVIEW_CHARS } from "../../db/repo/documents";
import type { DocumentRow } from "../../db/schema";
import type { Source } from "./model";

/** `preview` is the start of a text source's content (its first CONTENT_PREVIEW_CHARS characters). */
export function presentSource(d: DocumentRow & { preview: string | null }): Source {
  const s: Source = {
    id: d.id,
    pipelineId: d.collectionId,
    type: d.type,
    name: d.name,
    status: d.status,
    error: d.error,
    chunkCount: d.chunkCount,
    progress:
      d.progressUnit === "pages"
        ? { done: d.progressDone, total: d.progressTotal, unit: "pages" as const }
        : { done: d.progressDone, total: d.progressTotal },
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    indexedAt: d.indexedAt,
    metadata: parseStoredMetadata(d.metadata),
    externalId: d.externalId,
  };
  if (d.contentLength !== null) {
    s.content = (d.preview ?? "").slice(0, CONTENT_PREVIEW_CHARS);
    s.contentLength = d.contentLength;
  }
  if (d.url !== null) s.url = d.url;
  if (d.fileName !== null) s.fileName = d.fileName;
  if (d.fileSize !== null) s.fileSize = d.fileSize;
  if (d.ocr) s.ocr = JSON.parse(d.ocr) as NonNullable<Source["ocr"]>;
  return s;
}
