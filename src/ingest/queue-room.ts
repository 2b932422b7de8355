/**
 * The queue's bound: at most QUEUE_LIMIT tasks wait, and new work beyond it is refused
 * (QueueFullError, 429 with Retry-After) rather than queued without bound. A count a
 * moment old will do for a bound, so the queue is counted at most every 250 ms, plus
 * what was queued since.
 */
import type { Store } from "../db/store";
import { queuedTaskCount } from "../db/repo/tasks";
import { QueueFullError } from "./errors";

export const QUEUE_LIMIT = 10_000;
const RECOUNT_MS = 250;

export class QueueRoom {
  /** Queue length as last counted, plus what was queued since. */
  private queued = { n: 0, at: -Infinity };

  constructor(private readonly db: Store) {}

  /** Refuses (QueueFullError) unless the queue has room for `n` more tasks; a batch is refused whole rather than half-queued. */
  async require(n = 1): Promise<void> {
    const now = performance.now();
    if (now - this.queued.at > RECOUNT_MS) {
      // Stamped before the count is read: requests meanwhile go by the last count rather than each read it.
      this.queued.at = now;
      this.queued = { n: await queuedTaskCount(this.db.reader), at: now };
    }
    if (this.queued.n + n > QUEUE_LIMIT) throw new QueueFullError();
  }

  /** `n` more tasks were queued since the last count. */
  added(n = 1): void {
    this.queued.n += n;
  }
}
