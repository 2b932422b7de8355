/**
 * The one place where a metadata-only change reaches the chunk rows in the vector
 * store (docs/API.md, Documents API: "a metadata-only change re-embeds nothing").
 * SQLite already holds the new name and metadata when this runs; query results read
 * them from there. Chunk rows carry no copy of the metadata yet, so there is
 * nothing to rewrite; once they do, this is where the store's metadata update is called.
 */
import type { DocumentRow } from "../../db/schema";
import type { VectorStore } from "../../vectors/store";

/** Brings the chunk rows of `doc` in line with its stored metadata, without re-embedding. */
export async function updateChunkMetadata(_store: VectorStore, _doc: DocumentRow): Promise<void> {}
