/**
 * The queue's bound: at most QUEUE_LIMIT tasks wait, and new work beyond it is refused
 * (QueueFullError, 429 with Retry-After) rather than queued without bound. A count a
 * moment old will do for a bound, so the queue is counted at most every 250 ms, plus
 * what was queued since.
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

export class QueueRoom {
  /** Queue length as last counted, plus what was queued since. */
  private queued = { n: 0, at: -Infinity };

  constructor(
    private readonly db: Store,
    /** Tasks claimed and not yet ended. */
    private readonly running: () => number = () => 0,
    /** Whether table searches wait for a turn (VectorStore.queriesWaiting). */
    private readonly queriesWaiting: () => boolean = () => false,
  ) {}

  /** Refuses (QueueFullError) unless the queue has room for `n` more tasks; a batch is refused whole rather than half-queued. */
  async require(n = 1): Promise<void> {
    const now = performance.now();
    if (now - this.queued.at > RECOUNT_MS) {
      // Stamped before the count is read: requests meanwhile go by the last count rather than each read it.
      this.queued.at = now;
      this.queued = { n: await queuedTaskCount(this.db.reader), at: now };
    }
    if (this.queued.n + n > QUEUE_LIMIT) throw new QueueFullError();
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
  }
}
