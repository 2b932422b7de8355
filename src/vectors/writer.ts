/**
 * The single writer: every change to a table runs in that table's serial queue, so
 * two writes to one table never interleave (LanceDB duplicates rows under racing
 * writers) while different tables proceed in parallel.
 */
import type { Table } from "@lancedb/lancedb";
import { ensureFtsIndex } from "./fts-index";

export { ensureFtsIndex, wordsColumn } from "./fts-index";
import { awaitCreation } from "./table-creation";
import { MetadataColumn, type MetadataLookup } from "./metadata-column";
import { retryOnConflict } from "./retry";
import { TextTail } from "./text-tail";
import { collectionPrefix, inList, parseTableName, vectorDim, type ChunkRow, type TableCache } from "./tables";
import { rowsToArrow } from "./chunk-arrow";
import { allDone } from "../tools/all-done";
import { addArrow } from "./ipc-add";
import { SerialQueues } from "./serial-queues";

type Log = (msg: string, fields?: object) => void;

export interface WriteOptions {
  /** The appended rows outside the replaced documents cannot be stored yet: skip the delete of their ids. */
  appendedAreNew?: boolean;
}

export class TableWriter {
  readonly queues = new SerialQueues();
  /** Tables written since the last takeDirty(), for upkeep(). */
  private dirty = new Set<string>();
  /** Each table's rows outside its full-text index, as this process knows them. */
  private readonly tail = new TextTail();
  /** Collection prefixes dropped in this process; their writes become no-ops so a late write cannot resurrect a table. */
  private readonly droppedCollections = new Set<string>();
  /** Vector dimension per table: fixed once the table exists, and asked on every write. */
  private readonly dims = new Map<string, number>();
  private readonly metadata: MetadataColumn;

  constructor(
    private readonly tables: TableCache,
    private readonly log: Log,
    lookup: MetadataLookup = () => new Map(),
    /**
     * Other processes write these tables (replicas): a handle may be up to its read
     * consistency interval behind, and a delete computed on an old version misses the rows
     * another process appended since (LanceDB rebases the commit over theirs and keeps them).
     * So a write that deletes first brings its handle to the latest version.
     */
    private readonly shared = false,
  ) {
    this.metadata = new MetadataColumn(lookup, log);
  }

  /**
   * Deletes rows of `documentIds` (and any earlier copy of the given row ids, unless
   * `appendedAreNew` says rows outside those documents cannot be stored yet), then appends
   * `rows`; when it both deletes documents and adds rows, in a single commit.
   */
  replaceDocuments(name: string, documentIds: string[], rows: ChunkRow[], opts: WriteOptions = {}): Promise<void> {
    return this.queues.run(name, async () => {
      if (this.isDropped(name)) return this.log("vector write skipped: collection dropped", { table: name });
      // Metadata is read now, in the table's queue, so a rewrite queued by a later change runs after this write.
      const withMeta = await this.metadata.attach(name, rows);
      const table = (await this.tables.get(name)) ?? (await this.createWith(name, withMeta));
      if (!table) return;
      if (await this.metadata.ensure(name, table)) this.rewrote(name);
      if (this.shared && (documentIds.length || !opts.appendedAreNew)) await table.checkoutLatest();
      // Only documents with rows stored and new rows given need the merge: it reads the whole
      // table. Those without new rows are cleared by a delete; those with nothing stored append.
      const given = new Set(rows.map((r) => r.documentId));
      const replacing = documentIds.filter((id) => given.has(id));
      const clearing = documentIds.filter((id) => !given.has(id));
      const stored = replacing.length ? await documentsWithRows(table, replacing) : [];
      if (stored.length) {
        if (clearing.length) await table.delete(inList("document_id", clearing));
        // A replaced document with new rows: one commit, so a query sees the old version or the
        // new one, never neither (docs/API.md, Documents API). Merging on id also keeps one copy
        // of a replayed row.
        await table
          .mergeInsert("id")
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .whenNotMatchedBySourceDelete({ where: inList("document_id", stored) })
          .execute(toArrowChecked(withMeta, await this.dimOf(name, table)));
        this.wrote(name, rows.length);
        return;
      }
      // Only rows of documents not replaced here (a later slice, replayed) may be stored already.
      const replaced = new Set(replacing);
      const strays = opts.appendedAreNew ? [] : rows.filter((r) => !replaced.has(r.documentId));
      const predicate = replacePredicate(clearing, strays);
      if (predicate) await table.delete(predicate);
      if (rows.length) await addArrow(table, toArrowChecked(withMeta, await this.dimOf(name, table)));
      this.wrote(name, rows.length);
    });
  }

  /** Rows written to the table since tailIndexed() (the sink paces searched tables by it, table-upkeep.ts). */
  tailRows(name: string): number {
    return this.tail.rows(name);
  }

  /** Called in the table's queue right after a catch-up of its indexes: every row written so far is in them. */
  tailIndexed(name: string): void {
    this.tail.indexed(name);
  }

  /** Whether the table may hold rows outside its full-text index (TextTail.mayExist). */
  mayHaveTail(name: string): boolean {
    return this.tail.mayExist(name);
  }

  private wrote(name: string, rows: number): void {
    this.dirty.add(name);
    this.tail.wrote(name, rows);
  }

  /** Rows rewritten in place (their metadata): out of the full-text index until the next catch-up. */
  private rewrote(name: string): void {
    this.dirty.add(name);
    this.tail.rewrote(name);
  }

  /** Rewrites the metadata of one document's rows (or many's) in every table of the collection, keeping their vectors. */
  async rewriteMetadata(collectionId: string, documentId: string | string[]): Promise<void> {
    const ids = typeof documentId === "string" ? [documentId] : documentId;
    const names = await this.collectionTables(collectionId);
    await allDone(
      names.map((name) =>
        this.queues.run(name, async () => {
          const table = await this.tables.get(name);
          if (!table) return;
          await this.metadata.ensure(name, table);
          // Another replica may have replaced these rows: the rewrite copies them as they are now.
          if (this.shared) await table.checkoutLatest();
          await this.metadata.rewrite(name, table, ids);
          this.rewrote(name);
        }),
      ),
    );
  }

  /** Gives a table written before metadata existed its column (in its queue); later calls cost nothing. */
  async ensureMetadataColumn(name: string): Promise<void> {
    if (this.metadata.known(name)) return;
    await this.queues.run(name, async () => {
      const table = await this.tables.get(name);
      // A backfilled table owes upkeep its metadata index.
      if (table && (await this.metadata.ensure(name, table))) this.rewrote(name);
    });
  }

  /** Deletes one document's rows from every table (on disk or queued) of the collection. */
  async deleteDocument(collectionId: string, documentId: string): Promise<void> {
    const predicate = inList("document_id", [documentId]);
    const names = await this.collectionTables(collectionId);
    await allDone(
      names.map((name) =>
        this.queues.run(name, async () => {
          const table = await this.tables.get(name);
          if (!table) return;
          await table.delete(predicate);
          this.dirty.add(name);
        }),
      ),
    );
  }

  /** Drops one table after the writes already queued for it. */
  dropTable(name: string): Promise<void> {
    return this.queues.run(name, () => {
      this.dims.delete(name);
      this.tail.forget(name);
      this.metadata.forget(name);
      return this.tables.drop(name);
    });
  }

  /** Marks the collection dropped, then drops each of its tables behind its queued writes. */
  async dropCollection(collectionId: string): Promise<void> {
    this.droppedCollections.add(collectionPrefix(collectionId));
    const names = await this.collectionTables(collectionId);
    await allDone(names.map((name) => this.dropTable(name)));
  }

  /** Runs a task in a table's queue (maintenance that must not race writes). */
  exclusive<T>(name: string, task: () => Promise<T>): Promise<T> {
    return this.queues.run(name, task);
  }

  /** Returns and clears the set of tables written since the last call. */
  takeDirty(): string[] {
    const out = [...this.dirty];
    this.dirty = new Set();
    return out;
  }

  /** Re-marks a table for the next upkeep() (after a failed pass). */
  markDirty(name: string): void {
    this.dirty.add(name);
  }

  private async dimOf(name: string, table: Table): Promise<number> {
    let dim = this.dims.get(name);
    if (dim === undefined) this.dims.set(name, (dim = await vectorDim(table)));
    return dim;
  }

  private isDropped(name: string): boolean {
    return this.droppedCollections.has(name.slice(0, name.lastIndexOf("_g") + 2));
  }

  /** Tables of a collection that exist on disk or have writes queued. */
  private async collectionTables(collectionId: string): Promise<string[]> {
    const prefix = collectionPrefix(collectionId);
    // Queued names first: a write that finishes while the directory is listed is then on disk.
    const queued = this.queues.keys().filter((n) => n.startsWith(prefix));
    const onDisk = (await this.tables.names()).filter((n) => n.startsWith(prefix) && parseTableName(n));
    return [...new Set([...queued, ...onDisk])];
  }

  /**
   * First write: the table takes its dimension from the rows and gets its full-text index
   * right away. Null when that is done (or there was nothing to write); the table, for the
   * caller to write into as usual, when another process creates it (table-creation.ts).
   */
  private async createWith(name: string, rows: ChunkRow[]): Promise<Table | null> {
    if (!rows.length) return null;
    const { creation } = this.tables;
    if (!(await creation.reserve(name))) return this.createdElsewhere(name);
    let table: Table | null;
    try {
      table = await this.tables.create(name, rows);
    } finally {
      await creation.release(name);
    }
    // It existed already: created by a process that reserved it before us.
    if (!table) return this.createdElsewhere(name);
    this.metadata.markCurrent(name);
    // Seen once on RGW: the index's commit refused as conflicting with a later version of the table.
    await retryOnConflict(() => ensureFtsIndex(table));
    this.tail.indexed(name);
    this.dirty.add(name);
    this.log("vector table created", { table: name, dim: rows[0]!.vector.length });
    return null;
  }

  private async createdElsewhere(name: string): Promise<Table> {
    this.log("vector table created by another process", { table: name });
    return awaitCreation(this.tables.creation, name, () => this.tables.get(name));
  }
}

/**
 * Which of `documentIds` have rows in the table: the writer's caller cannot always tell a
 * document's first write (after a restart, once its memory of a document is gone, or on a
 * replica), and a merge costs the whole table where this reads one indexed column. During
 * a bulk load of 4,000,000 chunks, first writes taken for replacements made merges of 6–9 GB
 * and 10 s each, every half minute, until the server ran out of memory
 * (docs/notes/2026-12-07-ten-million.md).
 */
async function documentsWithRows(table: Table, documentIds: string[]): Promise<string[]> {
  const found = new Set<string>();
  for await (const batch of table.query().where(inList("document_id", documentIds)).select(["document_id"])) {
    const col = batch.getChild("document_id")!;
    for (let i = 0; i < col.length; i++) found.add(col.get(i) as string);
  }
  return documentIds.filter((id) => found.has(id));
}

/**
 * Rows of the replaced documents go, and so does any stored row with the id of an
 * appended row outside them (a later batch of a long document, replayed), so every
 * row id exists once however often a write is repeated.
 */
function replacePredicate(documentIds: string[], rows: ChunkRow[]): string | null {
  const docs = new Set(documentIds);
  const strays = rows.filter((r) => !docs.has(r.documentId));
  const parts: string[] = [];
  if (documentIds.length) parts.push(inList("document_id", documentIds));
  // The document_id term lets the scalar index narrow the scan before ids are compared.
  const strayDocs = [...new Set(strays.map((r) => r.documentId))];
  if (strays.length)
    parts.push(
      `(${inList("document_id", strayDocs)} AND ${inList(
        "id",
        strays.map((r) => r.id),
      )})`,
    );
  return parts.length ? parts.join(" OR ") : null;
}

function toArrowChecked(rows: ChunkRow[], dim: number) {
  const bad = rows.find((r) => r.vector.length !== dim);
  if (bad) throw new Error(`vector of ${bad.id} has ${bad.vector.length} dimensions; the table has ${dim}`);
  return rowsToArrow(rows);
}
