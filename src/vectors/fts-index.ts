/** The full-text indexes of a chunk table (BM25), by the columns it has. */
import { Index, type Table } from "@lancedb/lancedb";

/**
 * Creates the table's BM25 indexes unless they exist: on `terms` and `grams` where the
 * table has its text analysed by ragd (text/analyze.ts), split at spaces and otherwise
 * kept as written; on `text` with LanceDB's defaults in a table made before languages.
 */
export async function ensureFtsIndex(table: Table): Promise<void> {
  const indices = await table.listIndices();
  const has = (column: string) => indices.some((i) => i.columns.includes(column) && i.indexType === "FTS");
  const analysed = (await table.schema()).fields.some((f) => f.name === "terms");
  if (!analysed) {
    if (!has("text")) await table.createIndex("text", { config: Index.fts(), replace: false });
    return;
  }
  for (const column of ["terms", "grams"])
    if (!has(column)) await table.createIndex(column, { config: Index.fts(AS_WRITTEN), replace: false });
}

/** The index settings of analysed columns: the terms are final, the index only splits them at spaces. */
const AS_WRITTEN = {
  baseTokenizer: "whitespace",
  lowercase: false,
  stem: false,
  removeStopWords: false,
  asciiFolding: false,
  maxTokenLength: 255,
} as const;

/** The column whose full-text index holds a table's words: `terms`, or `text` in a table made before languages. */
export function wordsColumn(indices: { columns: string[]; indexType: string }[]): string {
  return indices.some((i) => i.columns.includes("terms") && i.indexType === "FTS") ? "terms" : "text";
}
