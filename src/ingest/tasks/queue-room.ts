/**
 * The queue's bound: at most QUEUE_LIMIT tasks wait, and new work beyond it is refused
 * (QueueFullError, 429 with Retry-After) rather than queued without bound. A count a
 * moment old will do for a bound, so the queue is counted at most every 250 ms, plus
 * what was queued since. Retry-After says when the queue will have room at the pace it
 * drained lately (DrainRate), 1 to 60 s; 60 when it has not been seen draining. A full
 * queue of 10,000 small documents drains in seconds here: a fixed minute left a client
 * that obeys it idle five sixths of the time (docs/notes/2026-12-07-ten-million.md).
 *
 * Queries first: while table searches wait for a turn, the vector store lets commits take
 * only a share of the time (vectors/write-pacing.ts), and new work is taken only while
 * fewer than BACKLOG_WHILE_QUERIED tasks are queued or running; beyond that it is refused
 * with a Retry-After of one second, so writers are paced by what the server gets done
 * rather than filling the queue (docs/notes/2026-12-06-queries-under-writes.md).
 */
import type { Store } from "../../db/store";
import { queuedTaskCount } from "../../db/repo/tasks";
import { QueueFullError } from "../errors";

export const QUEUE_LIMIT = 10_000;
/** Tasks queued or running beyond which new work waits while queries wait (a batch below it goes in whole). */
export const BACKLOG_WHILE_QUERIED = 512;
const QUERIES_FIRST = "queries are waiting and this server's ingestion has work in hand; try again in a second";
const RECOUNT_MS = 250;

/** The longest Retry-After of a full queue, and the one it gives before it has seen the queue drain. */
const FULL_RETRY_S = 60;

export class QueueRoom {
  /** Queue length as last counted, plus what was queued since. */
  private queued = { n: 0, at: -Infinity };
  /** The last count itself, and the tasks queued since (added()): how many ended between two counts. */
  private lastCount = 0;
  private addedSinceCount = 0;
  private readonly drain = new DrainRate();

  constructor(
    private readonly db: Store,
    /** Tasks claimed and not yet ended. */
    private readonly running: () => number = () => 0,
    /** Whether table searches wait for a turn (VectorStore.queriesWaiting). */
    private readonly queriesWaiting: () => boolean = () => false,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Refuses (QueueFullError) unless the queue has room for `n` more tasks; a batch is refused whole rather than half-queued. */
  async require(n = 1): Promise<void> {
    const now = this.now();
    if (now - this.queued.at > RECOUNT_MS) {
      // Stamped before the count is read: requests meanwhile go by the last count rather than each read it.
      const last = { n: this.lastCount, at: this.queued.at, added: this.addedSinceCount };
      this.queued.at = now;
      this.addedSinceCount = 0;
      this.lastCount = await queuedTaskCount(this.db.reader);
      this.queued = { n: this.lastCount + this.addedSinceCount, at: now };
      this.drain.counted(last, this.lastCount, now);
    }
    const over = this.queued.n + n - QUEUE_LIMIT;
    if (over > 0) {
      const s = this.drain.secondsFor(over, FULL_RETRY_S);
      throw new QueueFullError(
        `the ingestion queue is full; try again in ${s === FULL_RETRY_S ? "a minute" : `${s} s`}`,
        s,
      );
    }
    if (!this.queriesWaiting()) return;
    if (this.queued.n + this.running() >= BACKLOG_WHILE_QUERIED) throw new QueueFullError(QUERIES_FIRST, 1);
    // Counted at once, before the tasks are queued: writers that all ask at the same moment
    // would otherwise all pass one count. Until the next recount (RECOUNT_MS) these tasks
    // count twice, once queued: a burst is taken conservatively.
    this.queued.n += n;
  }

  /** `n` more tasks were queued since the last count. */
  added(n = 1): void {
    this.queued.n += n;
    this.addedSinceCount += n;
  }
}

/**
 * How fast the queue drained lately, in tasks a second: from each two counts, the tasks
 * that ended between them (the first count, plus what was queued since, less the second),
 * averaged over about the last ten seconds of counts.
 */
export class DrainRate {
  private perMs = 0;
  private seen = false;

  /** A count of `n` at `at`, after `last` (its count, time, and the tasks queued since). */
  counted(last: { n: number; at: number; added: number }, n: number, at: number): void {
    const ms = at - last.at;
    if (!Number.isFinite(ms) || ms <= 0) return;
    const ended = Math.max(0, last.n + last.added - n);
    // Only spans with work waiting say how fast it goes: an empty queue drains nothing.
    if (last.n + last.added === 0) return;
    const weight = Math.min(1, ms / 10_000);
    this.perMs = this.seen ? this.perMs + weight * (ended / ms - this.perMs) : ended / ms;
    this.seen = true;
  }

  /** Whole seconds until `tasks` more have ended at the recent pace, 1 to `most`; `most` when none were seen to end. */
  secondsFor(tasks: number, most: number): number {
    if (this.perMs <= 0) return most;
    return Math.min(most, Math.max(1, Math.ceil(tasks / this.perMs / 1000)));
  }
}
