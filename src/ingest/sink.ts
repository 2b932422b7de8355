/**
 * Group commit of chunk rows into LanceDB. Rows for one table gather while the
 * previous write to it runs, then go in one replaceDocuments call, so many small
 * documents cost few commits. Right before each write, rows whose document was
 * deleted, or whose generation is no longer wanted, are dropped: the check and
 * the enqueue happen in one synchronous step, so a delete can never be undone.
 */
import { LruCache } from "../tools/lru";
import type { VectorStore } from "../vectors/store";
import type { RowOut } from "./job";

interface Pending {
  collectionId: string;
  generation: number;
  /** Documents whose rows this batch replaces (their first write of a run). */
  deletes: Set<string>;
  rows: RowOut[];
  waiters: { resolve: () => void; reject: (e: unknown) => void }[];
}

/** Decides, at write time, which documents of a table may still be written. */
export type KeepFilter = (collectionId: string, generation: number, documentIds: string[]) => Set<string>;

export class ChunkSink {
  private readonly pending = new Map<string, Pending>();
  private readonly running = new Set<string>();
  /**
   * Per table and document, the highest chunk index stored since the document's rows
   * were last replaced (-1: none stored), while remembered. Both of LanceDB's deletes
   * scan the table, and this spares them: a first write of a document with nothing
   * stored deletes nothing, and a later slice whose indexes are all above the highest
   * holds no stored id. A forgotten document (or one whose commit failed) takes the deletes.
   */
  private readonly written = new LruCache<string, number>(10_000);

  constructor(
    private readonly store: VectorStore,
    private readonly keep: KeepFilter,
  ) {}

  /** Queues rows of one document; `first` replaces whatever rows it had. Resolves once committed. */
  write(collectionId: string, generation: number, documentId: string, rows: RowOut[], first: boolean): Promise<void> {
    const key = `${collectionId}/${generation}`;
    let p = this.pending.get(key);
    if (!p) {
      p = { collectionId, generation, deletes: new Set(), rows: [], waiters: [] };
      this.pending.set(key, p);
    }
    if (first) {
      // A new first write supersedes whatever of this document is still waiting.
      p.deletes.add(documentId);
      if (p.rows.some((r) => r.documentId === documentId)) p.rows = p.rows.filter((r) => r.documentId !== documentId);
    }
    for (const r of rows) p.rows.push(r);
    const done = new Promise<void>((resolve, reject) => p!.waiters.push({ resolve, reject }));
    if (!this.running.has(key)) void this.flush(key);
    return done;
  }

  /** Tells the sink that a document has nothing stored in this table (it was created in this process and never ran). */
  noteEmpty(collectionId: string, generation: number, documentId: string): void {
    this.written.set(`${collectionId}/${generation}|${documentId}`, -1);
  }

  /** Rows waiting for a commit (not counting the commit under way). */
  pendingRows(): number {
    let n = 0;
    for (const p of this.pending.values()) n += p.rows.length;
    return n;
  }

  /** Resolves when nothing is pending or being written. */
  async drain(): Promise<void> {
    while (this.pending.size > 0 || this.running.size > 0) await Bun.sleep(10);
  }

  /** Records, after a commit, the highest chunk index now stored for each document written. */
  private noteWritten(key: string, cleared: string[], rows: RowOut[]): void {
    for (const id of cleared) this.written.set(`${key}|${id}`, -1);
    for (const [doc, max] of span(rows, Math.max)) {
      const known = this.written.get(`${key}|${doc}`);
      if (known !== undefined && max > known) this.written.set(`${key}|${doc}`, max);
    }
  }

  private async flush(key: string): Promise<void> {
    this.running.add(key);
    try {
      for (let batch = this.pending.get(key); batch; batch = this.pending.get(key)) {
        this.pending.delete(key);
        const ids = [...new Set([...batch.deletes, ...batch.rows.map((r) => r.documentId)])];
        const alive = this.keep(batch.collectionId, batch.generation, ids);
        // One row per id (the latest), so a commit can never append an id twice.
        const rows = [...new Map(batch.rows.filter((r) => alive.has(r.documentId)).map((r) => [r.id, r])).values()];
        const replaced = [...batch.deletes].filter((id) => alive.has(id));
        const deletes = replaced.filter((id) => this.written.get(`${key}|${id}`) !== -1);
        const cleared = new Set(replaced);
        const appendedAreNew = [...span(rows, Math.min)].every(
          ([doc, min]) => cleared.has(doc) || min > (this.written.get(`${key}|${doc}`) ?? Infinity),
        );
        try {
          if (rows.length || deletes.length)
            await this.store.replaceDocuments(batch.collectionId, batch.generation, deletes, rows, appendedAreNew);
          this.noteWritten(key, replaced, rows);
          for (const w of batch.waiters) w.resolve();
        } catch (err) {
          // What a failed commit left is unknown: those documents take the deletes from now on.
          for (const id of ids) this.written.delete(`${key}|${id}`);
          for (const w of batch.waiters) w.reject(err);
        }
      }
    } finally {
      this.running.delete(key);
    }
  }
}

/** Per document of `rows`, the least (or greatest) chunk index, as `pick` says. */
function span(rows: RowOut[], pick: (a: number, b: number) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const v = out.get(r.documentId);
    out.set(r.documentId, v === undefined ? r.chunkIndex : pick(v, r.chunkIndex));
  }
  return out;
}
