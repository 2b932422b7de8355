/**
 * Table naming, the chunk row, SQL quoting and the cache of open LanceDB tables (the
 * rows as Arrow columns: chunk-arrow.ts).
 * One table per collection and index generation: `c_<uuid without dashes>_g<n>`.
 */
import { VersionPins } from "./version-keep";
import type { Table } from "@lancedb/lancedb";
import { type LanceConnection, tableCreation } from "./connection";
import type { TableCreation } from "./table-creation";
import { rowsToArrow } from "./chunk-arrow";

/** One chunk as written to a table; `id` is chunkId(documentId, chunkIndex) (chunk-id.ts). */
export interface ChunkRow {
  id: string;
  documentId: string;
  chunkIndex: number;
  text: string;
  start: number;
  end: number;
  vector: Float32Array;
  /** The source's metadata in its index form (meta-index.ts); the writer fills it in at write time. */
  metadata?: string;
  /** The text as analysed for the full-text index (text/analyze.ts): absent in tables made before languages. */
  terms?: string;
  grams?: string;
}

const NAME = /^c_([0-9a-f]{32})_g(\d+)$/;
/** How often a drop is tried when a file lands in the table's directory as it goes. */
const DROP_ATTEMPTS = 5;

/**
 * The table of one collection generation. Collection ids must be UUIDs; they are
 * lower-cased, so listTables() reports them lower-case.
 */
export function tableName(collectionId: string, generation: number): string {
  return `${collectionPrefix(collectionId)}${checkedGeneration(generation)}`;
}

/** The name prefix shared by every generation table of a collection. */
export function collectionPrefix(collectionId: string): string {
  const hex = collectionId.replace(/-/g, "").toLowerCase();
  // The id becomes a file name, so anything but 32 hex digits is refused.
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`collection id is not a UUID: ${JSON.stringify(collectionId)}`);
  return `c_${hex}_g`;
}

function checkedGeneration(generation: number): number {
  if (!Number.isSafeInteger(generation) || generation < 0) throw new Error(`bad index generation: ${generation}`);
  return generation;
}

/** Splits a table name back into collection id (dashed UUID) and generation; null for foreign tables. */
export function parseTableName(name: string): { collectionId: string; generation: number; name: string } | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const h = m[1]!;
  const collectionId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { collectionId, generation: Number(m[2]), name };
}

/** A SQL string literal; doubling quotes is the only escape DataFusion literals need. */
export function sqlString(s: string): string {
  if (s.includes("\0")) throw new Error("NUL in an id");
  return `'${s.replace(/'/g, "''")}'`;
}

/** `column IN ('a', 'b')`, or a never-true predicate for an empty list. */
export function inList(column: string, values: string[]): string {
  return values.length ? `${column} IN (${values.map(sqlString).join(", ")})` : "false";
}

/** The columns a chunk row is read back from: its fields and vector, not its metadata. */
export const STORED_COLUMNS = ["id", "document_id", "chunk_index", "text", "start", "end", "vector"];

/** The analysed-text columns of a table that has them (text/analyze.ts). */
export const ANALYSED_COLUMNS = ["terms", "grams"];

/** The columns a row of `table` is copied with: STORED_COLUMNS, and its analysed text where the table has it. */
export async function copiedColumns(table: Table): Promise<string[]> {
  const names = new Set((await table.schema()).fields.map((f) => f.name));
  return names.has("terms") ? [...STORED_COLUMNS, ...ANALYSED_COLUMNS] : STORED_COLUMNS;
}

/** A stored row as written back: its chunk fields, vector, and analysed text when it was read. */
export function storedRowOf(r: Record<string, unknown>): ChunkRow {
  const row: ChunkRow = { ...chunkFieldsOf(r), vector: Float32Array.from(r.vector as ArrayLike<number>) };
  if (typeof r.terms === "string") row.terms = r.terms;
  if (typeof r.grams === "string") row.grams = r.grams;
  return row;
}

/** Every row of `table` as it stands (vector and analysed text included, metadata not), in slices of `slice` rows. */
export async function* readChunkRows(table: Table, slice: number): AsyncGenerator<ChunkRow[]> {
  let rows: ChunkRow[] = [];
  for await (const batch of table.query().select(await copiedColumns(table))) {
    for (const r of batch.toArray() as Record<string, unknown>[]) {
      rows.push(storedRowOf(r));
      if (rows.length >= slice) {
        yield rows;
        rows = [];
      }
    }
  }
  if (rows.length) yield rows;
}

/** A stored row's chunk columns (not its vector or metadata), typed back from Arrow's values. */
export function chunkFieldsOf(r: Record<string, unknown>): Omit<ChunkRow, "vector" | "metadata"> {
  return {
    id: String(r.id),
    documentId: String(r.document_id),
    chunkIndex: Number(r.chunk_index),
    text: String(r.text),
    start: Number(r.start),
    end: Number(r.end),
  };
}

/** The vector dimension of a table, from its schema. */
export async function vectorDim(table: Table): Promise<number> {
  const field = (await table.schema()).fields.find((f) => f.name === "vector");
  return (field?.type as { listSize?: number } | undefined)?.listSize ?? -1;
}

/** Open tables by name. Handles are long-lived: LanceDB caches index data in them. */
export class TableCache {
  private readonly open = new Map<string, Promise<Table | null>>();
  /** Searches running on each handle, and the dropped handles that close when theirs end. */
  private readonly users = new Map<Table, number>();
  private readonly retired = new Set<Table>();
  /**
   * Drops begun and ended, by table name (odd while one runs): a read that fails while a
   * drop of its table runs, or after one began, failed because of it.
   */
  private readonly dropMarks = new Map<string, number>();
  /** Who creates a new table when several processes write to it first (table-creation.ts). */
  readonly creation: TableCreation;
  /** The old versions readers hold (VectorStore.holdVersion), which cleanups leave (version-keep.ts). */
  readonly pins = new VersionPins();

  constructor(private readonly conn: LanceConnection) {
    this.creation = tableCreation(conn);
  }

  /** The open table, or null when it does not exist (a miss is not cached: it may be created later). */
  get(name: string): Promise<Table | null> {
    let t = this.open.get(name);
    if (!t) {
      t = this.conn.openTable(name).catch((err) => {
        if (/not found|does not exist/i.test(String(err))) return null;
        throw err;
      });
      const mine = t;
      const unset = () => this.open.get(name) === mine && this.open.delete(name);
      this.open.set(name, t);
      t.then((v) => v ?? unset(), unset);
    }
    return t;
  }

  /** How many times a drop of `name` began or ended: a different count later means a drop ran meanwhile. */
  dropMark(name: string): number {
    return this.dropMarks.get(name) ?? 0;
  }

  /** A new handle of its own (not cached): for reading an older version with checkout(). */
  openUncached(name: string): Promise<Table> {
    return this.conn.openTable(name);
  }

  /**
   * Creates a table from its first rows; null when it exists already, because another
   * process (a replica on the same object store) created it first. The rows are then not
   * written: LanceDB's `existOk` would open the table and drop them silently.
   */
  async create(name: string, rows: ChunkRow[]): Promise<Table | null> {
    const t = await this.conn.createTable(name, rowsToArrow(rows)).catch((err) => {
      if (/already exists/i.test(String(err))) return null;
      throw err;
    });
    if (t) this.open.set(name, Promise.resolve(t));
    return t;
  }

  /** Drops a table; a table that is already gone is fine. */
  async drop(name: string): Promise<void> {
    const mark = () => this.dropMarks.set(name, this.dropMark(name) + 1);
    mark();
    this.forget(name);
    try {
      for (let attempt = 1; ; attempt++) {
        const err = await this.conn.dropTable(name).then(
          () => null,
          (e: unknown) => e,
        );
        if (err === null || /not found|does not exist/i.test(String(err))) break;
        // An index build that ends while the files go writes one more into the directory
        // being removed (ENOTEMPTY): the table is gone but for it, so remove it again.
        if (!/Directory not empty|os error 39/i.test(String(err)) || attempt >= DROP_ATTEMPTS) throw err;
        await Bun.sleep(20 * attempt);
      }
    } finally {
      // A get() while the files went may have opened the table again.
      this.forget(name);
      mark();
    }
  }

  /** Every table name in the database, page by page. */
  async names(): Promise<string[]> {
    const out: string[] = [];
    for (;;) {
      const page = await this.conn.tableNames({ startAfter: out.at(-1), limit: 1000 });
      out.push(...page);
      if (page.length < 1000) return out;
    }
  }

  /** Closes every cached handle. */
  closeAll(): void {
    for (const name of [...this.open.keys()]) this.forget(name);
  }

  /**
   * Runs `fn` on the open table `name`, holding the handle open (`using`); null when the
   * table does not exist, or a drop of it began while `fn` ran and `fn` failed. Every
   * read of a cached handle outside the table's write queue (where drops wait their
   * turn) goes through here: searches, counts, statistics and ANN builds.
   */
  async hold<T>(name: string, fn: (table: Table) => Promise<T>): Promise<T | null> {
    const before = this.dropMark(name);
    // Odd: a drop was running when the read began; changed: one began or ended since.
    const gone = (err: unknown): null => {
      if (before % 2 === 0 && this.dropMark(name) === before) throw err;
      return null;
    };
    const table = await this.get(name).catch(gone);
    if (!table) return null;
    return this.using(table, () => fn(table)).catch(gone);
  }

  /**
   * Runs `fn`, which reads `table`, holding the handle open: a drop meanwhile closes it
   * once `fn` is done. LanceDB frees a closed handle's native state at once, and a call
   * still running on it then reads freed memory and crashes the process (a pipeline
   * deleted under its queries did, in test/search-doors.test.ts).
   */
  private async using<T>(table: Table, fn: () => Promise<T>): Promise<T> {
    this.users.set(table, (this.users.get(table) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      const left = this.users.get(table)! - 1;
      if (left > 0) this.users.set(table, left);
      else {
        this.users.delete(table);
        if (this.retired.delete(table)) table.close();
      }
    }
  }

  private forget(name: string): void {
    const t = this.open.get(name);
    this.open.delete(name);
    t?.then(
      (v) => {
        if (!v) return;
        if (this.users.has(v)) this.retired.add(v);
        else v.close();
      },
      () => {},
    );
  }
}
