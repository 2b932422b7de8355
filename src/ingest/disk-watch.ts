/**
 * Watches free space on the data directory's disk. Under RAGD_MIN_FREE_MB no new
 * ingestion task starts (queued sources stay queued, and /readyz says why). A task
 * whose write found the disk full fails at once with a sentence naming the disk
 * (retrying sooner would only fail again); once there is more room than when it
 * failed, and at least the minimum, every such source is queued again by itself.
 * Its rerun replaces whatever rows the failed run left, so nothing is duplicated.
 */
import type { Store } from "../db/store";
import { documentsFailedForSpace } from "../db/repo/documents";
import type { Logger } from "../log";
import { throttledLogger } from "../log-throttle";
import { freeMb } from "../tools/disk";

/** What the engine asks of the disk watch. */
export interface DiskGate {
  /** False while free space is under RAGD_MIN_FREE_MB: no new task starts. */
  writable(): boolean;
  /** A task's failure for want of space (`free` MB then) is recorded; queue it again once space is back. */
  noteFull(free: number | null): void;
}

/** Space that must have come back since a failure before the sources are retried. */
const REGAINED_MB = 1;

export interface DiskWatchDeps {
  db: Store;
  dataDir: string;
  minFreeMb: number;
  log: Logger;
}

export class DiskWatch implements DiskGate {
  private free: number | null = null;
  private measuredAt = -Infinity;
  private low = false;
  /** Free MB when a task last failed for want of space; -Infinity after a start (failures may predate it). */
  private failedAt = -Infinity;
  /** Some source may be waiting for space (true at start: it may have failed before a restart). */
  private waiting = true;
  private readonly quiet: Logger;

  constructor(private readonly d: DiskWatchDeps) {
    this.quiet = throttledLogger(d.log);
  }

  /**
   * Checks now; services.ts runs the returned check every RAGD_DISK_CHECK_EVERY
   * (tools/scheduler.ts). `enqueue` queues a failed source again; the check catches its own failures.
   */
  start(enqueue: (documentId: string) => Promise<unknown>): () => Promise<void> {
    const check = () => this.check(enqueue);
    void check();
    return check;
  }

  writable(): boolean {
    const free = this.measure();
    return free === null || free >= this.d.minFreeMb;
  }

  noteFull(free: number | null): void {
    // The least room any waiting failure saw: more than that, and it may fit now.
    this.failedAt = this.waiting ? Math.min(this.failedAt, free ?? 0) : (free ?? 0);
    this.waiting = true;
    this.measuredAt = -Infinity;
  }

  /** Free MB, measured at most once a second. */
  private measure(): number | null {
    const now = performance.now();
    if (now - this.measuredAt >= 1000) {
      this.free = freeMb(this.d.dataDir);
      this.measuredAt = now;
    }
    return this.free;
  }

  private async check(enqueue: (documentId: string) => Promise<unknown>): Promise<void> {
    this.measuredAt = -Infinity;
    const free = this.measure();
    if (free === null) return;
    const low = free < this.d.minFreeMb;
    if (low !== this.low) {
      const fields = { dataDir: this.d.dataDir, freeMb: Math.floor(free), minFreeMb: this.d.minFreeMb };
      if (low)
        this.quiet.warn("the data directory's disk is nearly full: new sources are refused, ingestion waits", fields);
      else this.quiet.info("the data directory's disk has room again", fields);
      this.low = low;
    }
    if (low || !this.waiting || free < this.failedAt + REGAINED_MB) return;
    this.waiting = false;
    let count = 0;
    try {
      for (const doc of await documentsFailedForSpace(this.d.db.reader)) {
        await enqueue(doc.id);
        count++;
      }
    } catch (err) {
      // Still too tight for SQLite: the next check tries again.
      this.waiting = true;
      this.quiet.error("could not queue again the sources that failed on a full disk", { error: err });
    }
    if (count)
      this.d.log.info("queued again the sources that failed on a full disk", { count, freeMb: Math.floor(free) });
  }
}
