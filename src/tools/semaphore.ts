/** At most `limit` tasks run at once; the others wait their turn, first come first served. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** performance.now() when a task last had to wait for a turn. */
  lastQueuedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }

  /** Tasks running now. */
  get running(): number {
    return this.active;
  }

  /** Tasks waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      this.lastQueuedAt = performance.now();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.active++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
