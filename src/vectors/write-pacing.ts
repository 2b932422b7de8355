/**
 * How the writes of the vector store give way to its searches (VectorStore.writeRoom,
 * which the ingestion sink awaits before each commit). Two rules:
 *
 * - A table searched in the last SEARCHED_FOR_MS keeps its full-text tail (rows outside
 *   the index, which every keyword search tokenises again) within SEARCHED_TAIL_ROWS:
 *   its writes wait for a catch-up instead (table-upkeep.ts, roomFor). A catch-up
 *   rewrites the table's indexes, so it takes longer the larger the table (about 2–5 s at
 *   100,000 rows, 10–30 s at a million): after one that took d ms, the table's writes wait
 *   for no other for d ms, so catch-ups take at most about half of a searched table's
 *   ingestion time. Meanwhile its tail grows with the rows written; once it reaches the
 *   store's full-text limit (FTS_TAIL_ROWS), keyword searches leave it out rather than
 *   read it row by row, until a catch-up takes it (table-upkeep.ts, indexedTextOnly). Bounding the tail during the rest instead made the catch-ups run
 *   back to back once they took longer than the tail took to fill: 200 chunks/s at
 *   250,000 rows (docs/notes/2026-12-07-ten-million.md, -bulk-load.md).
 * - Queries first (WriteShare, below).
 *
 * Measured in docs/notes/2026-12-06-queries-under-writes.md.
 */
import type { TableUpkeep } from "./table-upkeep";
import type { Semaphore } from "../tools/semaphore";

/** The full-text tail a table searched lately may have after a commit. */
export const SEARCHED_TAIL_ROWS = 1_000;
/** A table searched this recently counts as searched: its writes are paced. */
export const SEARCHED_FOR_MS = 5_000;
/** Searches that had to wait for a turn this recently count as waiting (queriesWaiting). */
export const QUERIES_WAITED_MS = 1_000;

/**
 * Queries first: while table searches wait for a turn, chunk commits (and the index
 * catch-ups a searched table's commits wait for) take at most `share` of the time, so
 * LanceDB's threads and the main thread keep the rest for the searches. A commit that
 * took `d` ms makes the next one wait `d × (1 / share − 1)` ms, but only while searches
 * keep waiting: a server that is not asked queries writes at full speed. The ingestion
 * queue's admission (ingest/tasks/queue-room.ts) keeps what waits meanwhile short.
 */

/** The share of time commits may take while queries wait (RAGD_WRITE_SHARE). */
export const WRITE_SHARE = 0.3;
/** The longest single wait before the pressure is looked at again. */
const RECHECK_MS = 100;

export class WriteShare {
  /** performance.now() before which the next commit waits while searches wait. */
  private next = 0;

  constructor(
    private readonly share = WRITE_SHARE,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(share > 0 && share <= 1)) throw new RangeError(`share must be in (0, 1], got ${share}`);
  }

  /** Commit work of `ms` was done (concurrent commits add up). */
  spent(ms: number): void {
    if (this.share >= 1 || !(ms > 0)) return;
    this.next = Math.max(this.next, this.now()) + ms * (1 / this.share - 1);
  }

  /** How long the next commit should wait now, given whether searches are waiting (0: go). */
  waitMs(pressed: boolean): number {
    return pressed ? Math.max(0, this.next - this.now()) : 0;
  }

  /** Waits until commits may go on: at once unless searches wait and the share is used up. */
  async turn(pressed: () => boolean): Promise<void> {
    for (let wait = this.waitMs(pressed()); wait > 0; wait = this.waitMs(pressed()))
      await Bun.sleep(Math.min(wait, RECHECK_MS));
  }
}

export class WritePacing {
  /** When each table was last searched (ms since the epoch). */
  private readonly searchedAt = new Map<string, number>();
  /** Until when (now()) each table rests from catch-ups after its last one. */
  private readonly restUntil = new Map<string, number>();
  private readonly share: WriteShare;

  constructor(
    private readonly searches: Semaphore,
    private readonly tableUpkeep: Pick<TableUpkeep, "roomFor">,
    private readonly searchedTailRows = SEARCHED_TAIL_ROWS,
    share = WRITE_SHARE,
    /** A table rests this many times as long as its last catch-up took (0: never). */
    private readonly rest = 1,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.share = new WriteShare(share);
  }

  /** The table is being searched. */
  searched(name: string): void {
    this.searchedAt.set(name, Date.now());
  }

  /** Forgets the tables `dropped` says are gone. */
  forget(dropped: (name: string) => boolean): void {
    for (const name of [...this.searchedAt.keys()]) if (dropped(name)) this.searchedAt.delete(name);
    for (const name of [...this.restUntil.keys()]) if (dropped(name)) this.restUntil.delete(name);
  }

  /**
   * A commit of `ms` to table `name` ended. If the table is searched while searches wait,
   * its full-text tail is caught up at once, in the background (one catch-up of a table at
   * a time, in its write queue), and the catch-up counts as commit work: the searches
   * would otherwise tokenise the commit's rows again in every keyword search all the time
   * the next commit waits for its share (about 0.07 ms a row a search).
   */
  committed(name: string, ms: number): void {
    this.share.spent(ms);
    if (!this.isSearched(name) || !this.queriesWaiting || this.resting(name)) return;
    void this.timedRoom(name, 1).then(({ took }) => this.share.spent(took));
  }

  /** Whether table searches wait for a turn, or did within QUERIES_WAITED_MS: queries want more than they get. */
  get queriesWaiting(): boolean {
    return this.searches.queued > 0 || performance.now() - this.searches.lastQueuedAt < QUERIES_WAITED_MS;
  }

  /** Rows table `name` may take in its next commit: at once and unbounded unless a rule above holds it. */
  writeRoom(name: string): Promise<number> | number {
    const searched = this.isSearched(name);
    if (!searched && this.share.waitMs(this.queriesWaiting) === 0) return Number.POSITIVE_INFINITY;
    return this.pacedRoom(name, searched);
  }

  private isSearched(name: string): boolean {
    return this.searchedWithin(name, SEARCHED_FOR_MS);
  }

  /** Whether table `name` was searched in the last `ms` (by this process). */
  searchedWithin(name: string, ms: number): boolean {
    return Date.now() - (this.searchedAt.get(name) ?? Number.NEGATIVE_INFINITY) <= ms;
  }

  /**
   * writeRoom() once commits have waited their turn. A catch-up waited for here is the one
   * committed() started (already counted) or one of a table whose last commit came while no
   * search waited, which is not counted.
   */
  private async pacedRoom(name: string, searched: boolean): Promise<number> {
    await this.share.turn(() => this.queriesWaiting);
    if (!searched || this.resting(name)) return Number.POSITIVE_INFINITY;
    return (await this.timedRoom(name, this.searchedTailRows)).room;
  }

  /** roomFor(), and the rest that follows it when it caught the table up. */
  private async timedRoom(name: string, bound: number): Promise<{ room: number; took: number }> {
    const started = this.now();
    const { room, caughtUp } = await this.tableUpkeep.roomFor(name, bound);
    const took = this.now() - started;
    // A caller that joined the catch-up late waited less than it took: the longer rest holds.
    const until = Math.max(this.now() + took * this.rest, this.restUntil.get(name) ?? Number.NEGATIVE_INFINITY);
    if (caughtUp) this.restUntil.set(name, until);
    return { room, took };
  }

  /** Whether table `name` rests from catch-ups after its last one (upkeep's tail catch-ups leave it too). */
  resting(name: string): boolean {
    return this.now() < (this.restUntil.get(name) ?? Number.NEGATIVE_INFINITY);
  }
}
