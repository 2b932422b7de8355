/**
 * Queries first: while table searches wait for a turn, chunk commits (and the index
 * refreshes a searched table's commits wait for) take at most `share` of the time, so
 * LanceDB's threads and the main thread keep the rest for the searches. A commit that
 * took `d` ms makes the next one wait `d × (1 / share − 1)` ms, but only while searches
 * keep waiting: a server that is not asked queries writes at full speed. The ingestion
 * queue's admission (ingest/queue-room.ts) keeps what waits meanwhile short.
 * Measured in docs/notes/2026-12-06-queries-under-writes.md.
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
