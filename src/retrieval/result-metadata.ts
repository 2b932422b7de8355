/** The metadata of a search result: the reserved keys (docs/API.md, Query), then the source's own, flat. */
import { parseStoredMetadata } from "../core/metadata";
import type { ResultSource } from "../db/repo/result-sources";
import type { DocumentRow } from "../db/schema";

/** The reserved metadata keys of a result (docs/API.md, Query), then the source's own metadata, flat. */
export interface ResultMetadata {
  [key: string]: unknown;
  sourceId: string;
  sourceName: string;
  chunkIndex: number;
  sourceType: DocumentRow["type"];
  start: number;
  end: number;
  url?: string;
  fileName?: string;
  externalId?: string;
}

/** A hit's metadata from its source and its place in it. */
export function metadataOf(d: ResultSource, h: { chunkIndex: number; start: number; end: number }): ResultMetadata {
  // The source's keys first: reserved names are refused on write, but the reserved values must win anyway.
  const m: ResultMetadata = {
    ...parseStoredMetadata(d.metadata),
    sourceId: d.id,
    sourceName: d.name,
    chunkIndex: h.chunkIndex,
    sourceType: d.type,
    start: h.start,
    end: h.end,
  };
  if (d.url) m.url = d.url;
  if (d.fileName) m.fileName = d.fileName;
  if (d.externalId !== null) m.externalId = d.externalId;
  return m;
}
