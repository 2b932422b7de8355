/**
 * Group commit of chunk rows into LanceDB, and the one place that knows what is
 * stored. Rows for one table gather while the previous write to it runs, then go in
 * one replaceDocuments call, so many small documents cost few commits. Right before
 * each write, rows whose document was deleted, or whose generation is no longer
 * wanted, are dropped: the check and the enqueue happen in one step (KeepFilter), so
 * a delete can never be undone.
 *
 * Callers name what they do (replace, append, clear, markNew); the sink decides
 * which of LanceDB's deletes a write needs. Both scan the table, and most writes
 * need neither: a new document's first write has nothing to replace, and a later
 * slice whose chunk indexes are all above those stored holds no stored id.
 *
 * Queries come first: a table searched lately takes at most the rows the store gives it
 * room for (VectorStore.writeRoom), in whole documents, so its full-text tail stays short.
 */
import { RecentCache } from "../../tools/recent-cache";
import { QUEUE_LIMIT } from "../tasks/queue-room";
import type { VectorStore } from "../../vectors/store";
import type { RowOut } from "../job-types";

/** One document's rows in one collection generation's table (a task names one). */
export interface DocumentTable {
  collectionId: string;
  generation: number;
  documentId: string;
}

interface Pending {
  collectionId: string;
  generation: number;
  /** Documents whose stored rows this batch replaces. */
  replaced: Set<string>;
  rows: RowOut[];
  /** Documents with rows in `rows`: a replace looks here before it filters them out. */
  withRows: Set<string>;
  /** Per queued call, the document it wrote (its commit resolves it). */
  waiters: { documentId: string; resolve: () => void; reject: (e: unknown) => void }[];
}

/**
 * Decides, at write time, which documents of a table may still be written: calls
 * `write` with them and resolves with what it returns. The check and `write` are one
 * step that no delete can come between (engine.ts), so `write` queues its LanceDB
 * write and returns at once (a promise in an object: the step does not wait for it).
 */
export type KeepFilter = <T>(
  collectionId: string,
  generation: number,
  documentIds: string[],
  write: (alive: Set<string>) => T,
) => Promise<T>;

/** A write queued by the step above, and what it stores. */
interface Queued {
  done: Promise<void> | null;
  replaced: string[];
  rows: RowOut[];
}

/** Documents the sink remembers (fresh, written): a cache keeps half of them at least, twice the queue's bound. */
const REMEMBERED = 4 * QUEUE_LIMIT;
/** In `written`: the document has no row in the table. */
const NOTHING_STORED = -1;

/**
 * A commit that follows another with fewer rows than this waits a little for more: a
 * LanceDB commit costs about the same for 3 rows as for 1,500 (15 ms on an idle machine,
 * several hundred on a busy one), and right after a commit the rows of the next
 * documents are still being embedded. Measured: commits of 2 to 5 rows, each as long as
 * the large ones, took half the time of a burst of small documents. It waits only while
 * rows can still come: at the end of a burst (no job left in the workers) the last
 * commit goes at once, and one that is waiting goes when the last job ends (settle()).
 */
const GATHER_ROWS = 512;
/** The wait is half the previous commit's duration, at most this long. */
const GATHER_MAX_MS = 100;

export class ChunkSink {
  private readonly pending = new Map<string, Pending>();
  private readonly running = new Set<string>();
  /**
   * Per table and document, the highest chunk index stored since the document's rows
   * were last replaced (NOTHING_STORED: none), while remembered. A forgotten document
   * (or one whose commit failed) takes the deletes.
   */
  private readonly written = new RecentCache<string, number>(REMEMBERED);
  /**
   * Documents created in this process whose first write has not come yet (forgetting one
   * costs the writer a look for its rows: writer.ts, documentsWithRows). It holds the
   * REMEMBERED / 2 most recent at least, beyond the QUEUE_LIMIT that may wait before them.
   */
  private readonly fresh = new RecentCache<string, true>(REMEMBERED);
  /** Per table, a waiting commit's wake-up once GATHER_ROWS rows are pending. */
  private readonly gathering = new Map<string, () => void>();

  constructor(
    private readonly vectorStore: VectorStore,
    private readonly keep: KeepFilter,
    /** Whether more rows may arrive soon (a job is running in the workers); no commit waits for rows otherwise. */
    private readonly rowsComing: () => boolean = () => true,
    /**
     * Replicas write the same tables: another process may have written a document since
     * this one last did, so a replace always deletes (what `fresh` and `written` remember
     * still holds within one run, which one process alone runs under its lease).
     */
    private readonly shared = false,
  ) {}

  /** The first slice of a run: replaces whatever rows the document had. Resolves once committed. */
  replace(at: DocumentTable, rows: RowOut[]): Promise<void> {
    if (this.shared) {
      this.fresh.delete(at.documentId);
      this.written.delete(`${at.collectionId}/${at.generation}|${at.documentId}`);
    } else if (this.fresh.get(at.documentId)) {
      // A new document's first write: nothing of it is stored in any table.
      this.fresh.delete(at.documentId);
      this.written.set(`${at.collectionId}/${at.generation}|${at.documentId}`, NOTHING_STORED);
    }
    return this.queue(at, rows, { replaces: true });
  }

  /** A later slice of a run: adds rows (a replayed slice still leaves one copy of each). */
  append(at: DocumentTable, rows: RowOut[]): Promise<void> {
    return this.queue(at, rows, { replaces: false });
  }

  /** Removes every row of the document from the table (a failed run, a stray document). */
  clear(at: DocumentTable): Promise<void> {
    return this.replace(at, []);
  }

  /** Tells the sink that a document was just created here: it has no rows anywhere yet. */
  markNew(documentId: string): void {
    this.fresh.set(documentId, true);
  }

  /** Rows waiting for a commit (not counting the commit under way). */
  pendingRows(): number {
    let n = 0;
    for (const p of this.pending.values()) n += p.rows.length;
    return n;
  }

  /** After a job's ending: with no job left that could send rows, every wait for more ends at once. */
  settle(): void {
    if (this.rowsComing()) return;
    for (const wake of this.gathering.values()) wake();
  }

  /** Resolves when nothing is pending or being written. */
  async drain(): Promise<void> {
    while (this.pending.size > 0 || this.running.size > 0) await Bun.sleep(10);
  }

  /** Adds rows to the table's next commit; `replaces` drops the document's stored rows first. */
  private queue(at: DocumentTable, rows: RowOut[], { replaces }: { replaces: boolean }): Promise<void> {
    const { collectionId, generation, documentId } = at;
    const key = `${collectionId}/${generation}`;
    let p = this.pending.get(key);
    if (!p) {
      p = { collectionId, generation, replaced: new Set(), rows: [], withRows: new Set(), waiters: [] };
      this.pending.set(key, p);
    }
    if (replaces) {
      // A new replace supersedes whatever of this document is still waiting.
      p.replaced.add(documentId);
      // (A scan of every waiting row per replace made a burst of small documents quadratic.)
      if (p.withRows.delete(documentId)) p.rows = p.rows.filter((r) => r.documentId !== documentId);
    }
    for (const r of rows) p.rows.push(r);
    if (rows.length > 0) p.withRows.add(documentId);
    if (p.rows.length >= GATHER_ROWS) this.gathering.get(key)?.();
    const done = new Promise<void>((resolve, reject) => p!.waiters.push({ documentId, resolve, reject }));
    if (!this.running.has(key)) void this.flush(key);
    return done;
  }

  /** Records, after a commit, the highest chunk index now stored for each document written. */
  private noteWritten(key: string, cleared: string[], rows: RowOut[]): void {
    for (const id of cleared) this.written.set(`${key}|${id}`, NOTHING_STORED);
    for (const [doc, max] of span(rows, Math.max)) {
      const known = this.written.get(`${key}|${doc}`);
      if (known !== undefined && max > known) this.written.set(`${key}|${doc}`, max);
    }
  }

  /** Waits up to `ms` for GATHER_ROWS rows to be pending for the table. */
  private async gather(key: string, ms: number): Promise<void> {
    if ((this.pending.get(key)?.rows.length ?? GATHER_ROWS) >= GATHER_ROWS || ms < 1 || !this.rowsComing()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.gathering.set(key, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.gathering.delete(key);
  }

  private async flush(key: string): Promise<void> {
    this.running.add(key);
    let lastMs = 0;
    try {
      for (let batch = this.pending.get(key); batch; batch = this.pending.get(key)) {
        // Only a commit that follows another waits: a lone document's rows go at once.
        if (lastMs > 0) {
          await this.gather(key, Math.min(GATHER_MAX_MS, lastMs / 2));
          batch = this.pending.get(key)!;
        }
        // A searched table takes a bounded number of rows per commit (store.writeRoom); the rest wait.
        // Any other goes on in the same turn, as the first commit of a burst must (nothing joins it late).
        const asked = this.vectorStore.writeRoom(batch.collectionId, batch.generation);
        const room = typeof asked === "number" ? asked : await asked;
        const started = performance.now();
        batch = this.take(key, room);
        const ids = [...new Set([...batch.replaced, ...batch.rows.map((r) => r.documentId)])];
        try {
          const queued = await this.keep(batch.collectionId, batch.generation, ids, (alive) =>
            this.write(key, batch, alive),
          );
          await queued.done;
          this.noteWritten(key, queued.replaced, queued.rows);
          lastMs = performance.now() - started;
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

  /**
   * Takes the table's pending batch off the queue; when it holds more than `room` rows,
   * only its first documents up to that many (at least one, each whole with its replace,
   * so a query never sees a replaced document with neither version) and every clear.
   */
  private take(key: string, room: number): Pending {
    const p = this.pending.get(key)!;
    if (p.rows.length <= room) {
      this.pending.delete(key);
      return p;
    }
    const perDoc = new Map<string, number>();
    for (const r of p.rows) perDoc.set(r.documentId, (perDoc.get(r.documentId) ?? 0) + 1);
    const docs = new Set<string>();
    let n = 0;
    for (const [doc, rows] of perDoc) {
      if (docs.size > 0 && n + rows > room) break;
      docs.add(doc);
      n += rows;
    }
    if (docs.size === perDoc.size) {
      this.pending.delete(key);
      return p;
    }
    // Documents cleared without new rows go too: a delete costs the tail nothing.
    for (const doc of p.replaced) if (!p.withRows.has(doc)) docs.add(doc);
    const part: Pending = { ...p, replaced: new Set(), rows: [], withRows: new Set(), waiters: [] };
    for (const doc of docs) {
      if (p.replaced.delete(doc)) part.replaced.add(doc);
      if (p.withRows.delete(doc)) part.withRows.add(doc);
    }
    part.rows = p.rows.filter((r) => docs.has(r.documentId));
    p.rows = p.rows.filter((r) => !docs.has(r.documentId));
    part.waiters = p.waiters.filter((w) => docs.has(w.documentId));
    p.waiters = p.waiters.filter((w) => !docs.has(w.documentId));
    return part;
  }

  /** Queues the batch's rows and deletes of the documents still `alive` in the table's LanceDB queue. */
  private write(key: string, batch: Pending, alive: Set<string>): Queued {
    // One row per id (the latest), so a commit can never append an id twice.
    const rows = [...new Map(batch.rows.filter((r) => alive.has(r.documentId)).map((r) => [r.id, r])).values()];
    const replaced = [...batch.replaced].filter((id) => alive.has(id));
    const deletes = replaced.filter((id) => this.written.get(`${key}|${id}`) !== NOTHING_STORED);
    const cleared = new Set(replaced);
    const appendedAreNew = [...span(rows, Math.min)].every(
      ([doc, min]) => cleared.has(doc) || min > (this.written.get(`${key}|${doc}`) ?? Infinity),
    );
    if (!rows.length && !deletes.length) return { done: null, replaced, rows };
    const { collectionId, generation } = batch;
    const done = this.vectorStore.replaceDocuments(collectionId, generation, deletes, rows, { appendedAreNew });
    // Awaited by flush() once the check's step is over; handled meanwhile, should it fail first.
    void done.catch(() => {});
    return { done, replaced, rows };
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
