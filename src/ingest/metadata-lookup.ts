/**
 * Where the vector store reads a document's metadata when it writes the document's
 * chunk rows: SQLite, at write time, so rows always carry the latest metadata.
 */
import { parseStoredMetadata } from "../core/metadata";
import type { Db } from "../db/client";
import { listDocumentsByIds } from "../db/repo/documents";
import type { DocumentRow } from "../db/schema";
import { encodeChunkMetadata } from "../vectors/meta-index";
import type { MetadataLookup } from "../vectors/store";

const BATCH = 500;

/** The metadata in its index form, for the vector store's `metadataOf`. */
export function metadataLookup(db: Db): MetadataLookup {
  return (collectionId, ids) => {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += BATCH)
      for (const d of listDocumentsByIds(db, ids.slice(i, i + BATCH)))
        if (d.collectionId === collectionId) out.set(d.id, indexForm(d));
    return out;
  };
}

/** One document's metadata, sourceType and externalId as its chunk rows store them. */
export function indexForm(d: Pick<DocumentRow, "metadata" | "type" | "externalId">): string {
  return encodeChunkMetadata(parseStoredMetadata(d.metadata), { sourceType: d.type, externalId: d.externalId });
}
