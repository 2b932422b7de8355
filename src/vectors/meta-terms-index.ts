/**
 * The LABEL_LIST index on `metadata_terms` (meta-index.ts): `array_has_any` over the
 * column reads it as a prefilter instead of scanning every row's terms, so an
 * equality, $in or $exists filter costs about what its matches cost. Built by upkeep
 * once the table has the column; optimize() folds rows written since into it, and rows
 * not yet folded in are scanned, so results never depend on the index's state.
 */
import { Index, type Table } from "@lancedb/lancedb";
import { METADATA_TERMS_COLUMN } from "./meta-index";

/** Builds the index when the table has the column but not yet the index. */
export async function ensureMetadataTermsIndex(table: Table): Promise<void> {
  const schema = await table.schema();
  // A table from before the column gets it on its first write or filtered search.
  if (!schema.fields.some((f) => f.name === METADATA_TERMS_COLUMN)) return;
  const indexed = (await table.listIndices()).some((i) => i.columns.includes(METADATA_TERMS_COLUMN));
  if (!indexed) await table.createIndex(METADATA_TERMS_COLUMN, { config: Index.labelList(), replace: false });
}
