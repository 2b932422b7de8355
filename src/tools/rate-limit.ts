/** In-memory limiters: a failure counter with a window, and a token bucket. */

/** Counts failures per key in a sliding window; blocks a key once it reaches `max`. */
export class FailureLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again; 0 when it may try now. */
  retryAfter(key: string): number {
    const list = this.recent(key);
    if (list.length < this.max) return 0;
    return Math.max(1, Math.ceil((list[0]! + this.windowMs - this.now()) / 1000));
  }

  fail(key: string): void {
    const list = this.recent(key);
    list.push(this.now());
    this.hits.set(key, list);
    if (this.hits.size > 100_000) this.hits.delete(this.hits.keys().next().value!);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private recent(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    return (this.hits.get(key) ?? []).filter((t) => t > cutoff);
  }
}

/** A token bucket per key: `rate` tokens a second, at most `burst` saved up. */
export class TokenBucket {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `n` tokens, all or none; returns 0 on success or the seconds to wait for them. */
  take(key: string, n = 1): number {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= n) {
      b.tokens -= n;
      return 0;
    }
    return Math.max(1, Math.ceil((n - b.tokens) / this.rate));
  }

  forget(key: string): void {
    this.buckets.delete(key);
  }
}
