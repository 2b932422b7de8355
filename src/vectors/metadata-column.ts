/**
 * The `metadata` and `metadata_terms` columns of chunk tables (meta-index.ts says what they hold): filled
 * in at write time from the source's current metadata, rewritten in place when the
 * metadata changes (vectors kept, nothing embedded), and added to tables written
 * before a column existed, with their rows backfilled, the first time such a
 * table is written or filtered.
 */
import { makeArrowTable, type Table } from "@lancedb/lancedb";
import * as arrow from "apache-arrow";
import { METADATA_COLUMN, METADATA_TERMS_COLUMN } from "./meta-index";
import { copiedColumns, inList, parseTableName, storedRowOf, type ChunkRow } from "./tables";
import { metadataField, metadataTermsField, rowsToArrow } from "./chunk-arrow";

/** The index form of the metadata of each listed document of a collection (absent: deleted). */
export type MetadataLookup = (
  collectionId: string,
  documentIds: string[],
) => Promise<Map<string, string>> | Map<string, string>;

type Log = (msg: string, fields?: object) => void;

const BACKFILL_BATCH = 200;

export class MetadataColumn {
  /** Tables known to have the column. */
  private readonly current = new Set<string>();

  constructor(
    private readonly lookup: MetadataLookup,
    private readonly log: Log,
  ) {}

  known(name: string): boolean {
    return this.current.has(name);
  }

  markCurrent(name: string): void {
    this.current.add(name);
  }

  forget(name: string): void {
    this.current.delete(name);
  }

  /** The rows with their documents' metadata filled in. */
  async attach(name: string, rows: ChunkRow[]): Promise<ChunkRow[]> {
    if (!rows.length) return rows;
    const collectionId = parseTableName(name)?.collectionId;
    if (!collectionId) return rows;
    const meta = await this.lookup(collectionId, [...new Set(rows.map((r) => r.documentId))]);
    return rows.map((r) => ({ ...r, metadata: meta.get(r.documentId) ?? "{}" }));
  }

  /**
   * Adds the columns the table lacks and backfills every row holding a null in either:
   * rows of a column just added, or left by a backfill that a crash cut short. Run it
   * in the table's queue. True when it rewrote rows.
   */
  async ensure(name: string, table: Table): Promise<boolean> {
    if (this.current.has(name)) return false;
    const have = new Set((await table.schema()).fields.map((f) => f.name));
    // Columns keep the order rowsToArrow writes in: metadata, then its terms.
    const missing = [metadataField(), metadataTermsField()].filter((f) => !have.has(f.name));
    // makeArrowTable hands back LanceDB's own Arrow classes, which addColumns insists on.
    if (missing.length) await table.addColumns(makeArrowTable([], { schema: new arrow.Schema(missing) }).schema);
    const ids = await documentIds(table, `${METADATA_COLUMN} IS NULL OR ${METADATA_TERMS_COLUMN} IS NULL`);
    for (let i = 0; i < ids.length; i += BACKFILL_BATCH)
      await this.rewrite(name, table, ids.slice(i, i + BACKFILL_BATCH));
    if (ids.length)
      this.log("vector table metadata backfilled", {
        table: name,
        columns: missing.map((f) => f.name),
        documents: ids.length,
      });
    this.current.add(name);
    return ids.length > 0;
  }

  /** Rewrites the metadata of the documents' rows in one commit, keeping every other column. */
  async rewrite(name: string, table: Table, docIds: string[]): Promise<void> {
    const columns = await copiedColumns(table);
    const stored = await table.query().where(inList("document_id", docIds)).select(columns).toArray();
    if (!stored.length) return;
    const rows: ChunkRow[] = stored.map(storedRowOf);
    await table
      .mergeInsert("id")
      .whenMatchedUpdateAll()
      .execute(rowsToArrow(await this.attach(name, rows)));
  }
}

async function documentIds(table: Table, where: string): Promise<string[]> {
  const ids = new Set<string>();
  for await (const batch of table.query().where(where).select(["document_id"])) {
    const col = batch.getChild("document_id")!;
    for (let i = 0; i < col.length; i++) ids.add(col.get(i) as string);
  }
  return [...ids];
}
