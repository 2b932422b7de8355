/**
 * A clock a test moves by hand (src/tools/clock.ts): `advance(ms)` fires every timer that
 * falls due on the way, in time order, without waiting.
 */
import type { Clock } from "../../src/tools/clock";

interface Timer {
  everyMs: number;
  next: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  private readonly timers = new Set<Timer>();

  constructor(private at = Date.parse("2026-01-01T00:00:00Z")) {}

  now(): number {
    return this.at;
  }

  every(ms: number, fn: () => void): () => void {
    const t = { everyMs: ms, next: this.at + ms, fn };
    this.timers.add(t);
    return () => this.timers.delete(t);
  }

  /** Moves time on by `ms`, firing each timer as often as it falls due meanwhile. */
  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      const due = [...this.timers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.at = due.next;
      due.next += due.everyMs;
      due.fn();
    }
    this.at = end;
  }

  /** How many timers run. */
  get armed(): number {
    return this.timers.size;
  }
}
