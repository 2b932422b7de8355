/**
 * Task leases for replicas (docs/ARCHITECTURE.md, Several replicas). A claim holds its
 * task for REPLICA_LEASE_MS; while the task runs, this process renews the lease every
 * RENEW_MS, and every RENEW_MS it also puts back in the queue any task whose lease ran
 * out: its replica was killed, or lost the database for longer than a lease. The task's
 * next run replaces whatever rows the first one wrote (the sink's replace), and the first
 * one's ending, should it still come, is refused (its claim's `attempts` no longer match).
 * One server alone keeps the long lease it always had: a restart requeues its tasks.
 */
import { requeueExpired, renewLeases } from "../db/repo/task-leases";
import type { Store } from "../db/store";
import type { Logger } from "../log";
import { recordSourceEvents } from "./events";

/** A server alone: nobody else could take its tasks, and its restart requeues them. */
export const LEASE_MS = 30 * 60_000;
/** A replica's claim: how long a dead replica's tasks wait before another takes them. */
export const REPLICA_LEASE_MS = 30_000;
const RENEW_MS = 10_000;

export class TaskLeases {
  private last = Date.now();
  private busy = false;

  constructor(
    private readonly db: Store,
    private readonly log: Logger,
    /** The tasks this process runs now. */
    private readonly running: () => string[],
    /** Called when tasks went back to the queue (so a claim looks at once). */
    private readonly requeued: () => void,
  ) {}

  /** Called every second by the engine: renews and reclaims every RENEW_MS. */
  tick(now = Date.now()): void {
    if (this.busy || now - this.last < RENEW_MS) return;
    this.busy = true;
    this.last = now;
    void this.renewAndReclaim(now)
      .catch((err) => this.log.warn("could not renew or reclaim task leases", { error: err }))
      .finally(() => (this.busy = false));
  }

  private async renewAndReclaim(now: number): Promise<void> {
    const ids = this.running();
    if (ids.length > 0) await this.db.atomically((t) => renewLeases(t, ids, now + REPLICA_LEASE_MS));
    const back = await this.db.atomically(async (t) => {
      const docs = await requeueExpired(t, now);
      await recordSourceEvents(t, "source.queued", docs, now);
      return docs.length;
    });
    if (back === 0) return;
    this.log.info("requeued tasks whose replica stopped renewing them", { documents: back });
    this.requeued();
  }
}
