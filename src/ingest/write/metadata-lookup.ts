/**
 * Where the vector store reads a document's metadata when it writes the document's
 * chunk rows: SQLite, at write time, so rows always carry the latest metadata.
 */
import { parseStoredMetadata } from "../../core/metadata";
import type { Store } from "../../db/store";
import { documentLabels } from "../../db/repo/task-batches";
import type { DocumentRow } from "../../db/schema";
import { encodeChunkMetadata } from "../../vectors/meta-index";
import type { MetadataLookup } from "../../vectors/store";

/** The metadata in its index form, for the vector store's `metadataOf`: as last committed. */
export function metadataLookup(store: Store): MetadataLookup {
  return async (collectionId, ids) => {
    const out = new Map<string, string>();
    // One cached statement for any count (the ids go in as JSON), reading only the labels.
    for (const d of await documentLabels(store.reader, ids))
      if (d.collectionId === collectionId) out.set(d.id, indexForm(d));
    return out;
  };
}

/** One document's metadata, sourceType and externalId as its chunk rows store them. */
export function indexForm(d: Pick<DocumentRow, "metadata" | "type" | "externalId">): string {
  return encodeChunkMetadata(parseStoredMetadata(d.metadata), { sourceType: d.type, externalId: d.externalId });
}
