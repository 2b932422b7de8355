/**
 * A document row's columns as plain SQL selects them (`d` is the documents table), named
 * as drizzle names the row's fields, for the statements over many documents that read
 * whole rows without the query builder.
 */
import type { PlainSql } from "../dialect";
import type { DocumentRow } from "../schema";

/** Each column with its field, in the table's order. */
export const DOCUMENT_COLUMNS: [column: string, field: keyof DocumentRow][] = [
  ["id", "id"],
  ["collection_id", "collectionId"],
  ["type", "type"],
  ["name", "name"],
  ["content_length", "contentLength"],
  ["url", "url"],
  ["url_credentials", "urlCredentials"],
  ["file_name", "fileName"],
  ["file_size", "fileSize"],
  ["file_path", "filePath"],
  ["status", "status"],
  ["error", "error"],
  ["chunk_count", "chunkCount"],
  ["progress_done", "progressDone"],
  ["progress_total", "progressTotal"],
  ["progress_unit", "progressUnit"],
  ["created_at", "createdAt"],
  ["updated_at", "updatedAt"],
  ["indexed_at", "indexedAt"],
  ["metadata", "metadata"],
  ["external_id", "externalId"],
  ["content_hash", "contentHash"],
  ["ocr", "ocr"],
];

export const DOCUMENT_FIELDS: PlainSql = {
  sqlite: DOCUMENT_COLUMNS.map(([c, f]) => `d.${c} AS ${f}`).join(", "),
  // file_size is a bigint there, which plain SQL reads as a string: read as a number.
  pg: DOCUMENT_COLUMNS.map(([c, f]) => `d.${c}${c === "file_size" ? "::float8" : ""} AS "${f}"`).join(", "),
};
