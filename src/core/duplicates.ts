/**
 * The same file uploaded twice to one pipeline or knowledge base (docs/API.md, "The
 * same file twice"): recognised by the SHA-256 of its bytes and refused with 409,
 * naming the source that already has it, instead of indexing it a second time and
 * answering every query with the same chunk twice.
 */
import type { Db } from "../db/client";
import { findSameContent } from "../db/repo/external-documents";
import { DomainError } from "./errors";

/**
 * Throws a `conflict` (409) when another document of the collection has these bytes. With
 * the `tx` of the transaction that stores the document, no other can take them meanwhile.
 */
export async function refuseDuplicateFile(
  db: Db,
  collectionId: string,
  documentId: string,
  contentHash: string,
): Promise<void> {
  const same = await findSameContent(db, collectionId, contentHash, documentId);
  if (!same) return;
  const message = `the same file is already here as “${same.name}” (${same.id}); nothing was added`;
  throw new DomainError("conflict", message, [{ field: "file", message: `duplicateOf: ${same.id}` }]);
}
