/** The metadata of a search result: the reserved keys (docs/API.md, Query), then the source's own, flat. */
import { parseStoredMetadata } from "../core/metadata";
import type { Db } from "../db/client";
import { findResultSources, type ResultSource } from "../db/repo/result-sources";
import type { DocumentRow } from "../db/schema";
import type { StoredHit } from "../vectors/store";
import { carriesCurrentLabels, currentLabels, withoutAccessList } from "./current-labels";

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

/**
 * Each hit of `collection` with its source's metadata, in order; undefined where the source
 * was deleted a moment ago, or, for a `restricted` caller, where the hit's row does not carry
 * its source's current labels (current-labels.ts); a restricted caller's metadata leaves out
 * the access list.
 */
export async function attachSources(
  db: Db,
  collectionId: string,
  hits: StoredHit[],
  restricted: boolean,
): Promise<({ content: string; score: number; metadata: ResultMetadata } | undefined)[]> {
  const ids = [...new Set(hits.map((h) => h.documentId))];
  const sources = (await findResultSources(db, ids)).filter((d) => d.collectionId === collectionId);
  const docs = new Map(sources.map((d) => [d.id, d]));
  // Each source's labels once, not once a hit.
  const labels = new Map(restricted ? sources.map((d) => [d.id, currentLabels(d)]) : []);
  return hits.map((h) => {
    const d = docs.get(h.documentId);
    if (!d || (restricted && !carriesCurrentLabels(h.labels, labels.get(d.id)!))) return undefined;
    const metadata = metadataOf(d, h);
    return { content: h.text, score: h.score, metadata: restricted ? withoutAccessList(metadata) : metadata };
  });
}
