/**
 * Where ragd's time comes from: the wall clock in milliseconds, and timers that repeat.
 * createServices owns one and hands it to what runs periodic work (tools/scheduler.ts);
 * a test may hand in its own to step time instead of waiting for it.
 */

/** A repeating timer's handle: stops it. */
export type Cancel = () => void;

export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /** Calls `fn` every `ms` until cancelled. */
  every(ms: number, fn: () => void): Cancel;
}

/** The system's clock and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  },
};
