/**
 * What the periodic index upkeep does on each tick (services.ts, every 10 s): the full
 * pass (compaction, index catch-up, ANN training) when ingestion is quiet, or once it has
 * waited two minutes (longer after a long pass: FULL_PASS_SPACING); while ingestion runs, only the catch-up of long full-text tails
 * (table-upkeep.ts), and that only once ingestion has gone on for a while.
 *
 * The tail catch-up runs optimize() inside the table's write queue, so the commits of the
 * ingestion wait for it, and under load it took longer than a whole burst: a 5,000-document
 * batch run that met a tick took 14 s instead of 5, its LanceDB threads spending 0.2 ms
 * per chunk instead of 0.02. A burst that one tick sees alone therefore leaves its tail to the
 * full pass that follows it; keyword searches meanwhile scan the unindexed rows
 * (correct, slower), as they do between any two catch-ups, or leave them out once they
 * reach the catch-up limit (table-upkeep.ts, indexedTextOnly).
 */

/** What one tick does. */
export type UpkeepStep = "full" | "tails" | "none";

/**
 * How long ingestion runs (as the ticks see it) before its full-text tails are caught up:
 * one tick, so a tail holds at most about two ticks of ingestion instead of one.
 */
export const BURST_GRACE_MS = 10_000;
/** The longest the full pass waits for ingestion to be quiet... */
export const FULL_PASS_WAIT_MS = 120_000;
/**
 * ...or, after one that took d (the ANN training it started included: on two cores it takes
 * the CPU the load needs), FULL_PASS_SPACING × d, when that is longer: the pass holds
 * each table's writes while it compacts and indexes it, and takes longer the larger the
 * tables (about 100 s at a million rows), so passes every two minutes would hold a large
 * load's writes nearly all the time; spaced so, they hold them at most a quarter of it.
 */
export const FULL_PASS_SPACING = 4;
/**
 * Ingestion that wrote this recently counts as running though no task is under way at
 * the tick: between two batch requests the queue may be empty for a moment, and a full
 * pass begun then held the next commits (LanceDB's threads at 0.2 ms per chunk).
 */
export const QUIET_AFTER_WRITE_MS = 3_000;
/** ...or a tenth of the last full pass's duration, when that is longer. */
export const QUIET_SHARE_OF_PASS = 10;

export class UpkeepClock {
  private lastFull: number;
  /** How long the last full pass took (fullPassTook). */
  private lastPassMs = 0;
  /** When a tick first saw the ingestion under way now running; null while quiet. */
  private busySince: number | null = null;

  constructor(
    now = Date.now(),
    private readonly graceMs = BURST_GRACE_MS,
    private readonly maxWaitMs = FULL_PASS_WAIT_MS,
  ) {
    this.lastFull = now;
  }

  /** The step of a tick at `now`, given whether ingestion is running and when it last wrote. */
  tick(running: boolean, now = Date.now(), lastWriteAt = Number.NEGATIVE_INFINITY): UpkeepStep {
    // After a long pass, a lull must be long too before it counts as the load's end: a client
    // waiting out a full queue left 3 s between two batches of a ten-million-chunk load, and
    // the pass it started held the load's last writes for ten minutes.
    const lull = Math.max(QUIET_AFTER_WRITE_MS, this.lastPassMs / QUIET_SHARE_OF_PASS);
    const busy = running || now - lastWriteAt < lull;
    const wait = Math.max(this.maxWaitMs, FULL_PASS_SPACING * this.lastPassMs);
    if (!busy || now - this.lastFull >= wait) {
      if (!busy) this.busySince = null;
      this.lastFull = now;
      return "full";
    }
    this.busySince ??= now;
    return now - this.busySince >= this.graceMs ? "tails" : "none";
  }

  /** The full pass a tick asked for took `ms`. */
  fullPassTook(ms: number): void {
    this.lastPassMs = ms;
  }
}
