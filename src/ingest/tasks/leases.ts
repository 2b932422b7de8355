/**
 * Task leases for replicas (docs/ARCHITECTURE.md, Several replicas). A claim holds its
 * task for the replica lease (RAGD_REPLICA_LEASE, REPLICA_LEASE_MS unless set); while the
 * task runs, this process renews the lease every third of it, and every RECLAIM_MS it looks for tasks whose lease ran out (their replica
 * was killed, or lost the database for longer than a lease) and puts them back in the
 * queue. The task's next run replaces whatever rows the first one wrote (the sink's
 * replace).
 *
 * A claim is a task at one attempt (`attempts` counts claims), so a replica that was only
 * slow learns it lost one: the renewal does not find it, and its job is cancelled. Until
 * then its rows are refused at the sink (engine.ts `writable` asks the database whether
 * the claim still holds) and its ending too (outcome.ts). A replica that cannot renew
 * at all (the database is unreachable) cancels every job once the lease less one renewal
 * interval has passed since its last renewal, before another replica may take them.
 * One server alone keeps the long lease it always had: a restart requeues its tasks.
 */
import type { Db } from "../../db/client";
import {
  anyExpired,
  type Claim,
  claimKey,
  heldClaims,
  releaseClaims,
  requeueExpired,
  renewLeases,
} from "../../db/repo/task-leases";
import type { Store } from "../../db/store";
import type { Logger } from "../../log";
import { recordSourceEvents } from "../events";

/** A server alone: nobody else could take its tasks, and its restart requeues them. */
export const LEASE_MS = 30 * 60_000;
/** A replica's claim unless RAGD_REPLICA_LEASE says otherwise: how long a dead replica's tasks wait before another takes them. */
export const REPLICA_LEASE_MS = 30_000;
/** Renewals per lease: every 10 s of the default 30 s. */
const RENEWALS_PER_LEASE = 3;
/**
 * How often a replica looks for expired leases: one indexed read, and a write transaction
 * only when it finds one. Looking at every renewal left a dead replica's tasks waiting up
 * to 10 s past their lease (34–40 and 54–56 s from a kill -9 to every source ready).
 */
const RECLAIM_MS = 2_000;

export class TaskLeases {
  private last: number;
  private lastReclaim: number;
  /** When a renewal last succeeded. */
  private renewed: number;
  private busy = false;
  private readonly renewMs: number;
  /** Without a renewal for this long, every job stops: its lease is about to run out. */
  private readonly stopAfterMs: number;

  constructor(
    private readonly db: Store,
    private readonly log: Logger,
    /** The claims this process runs now. */
    private readonly running: () => Claim[],
    /** Stops the jobs of claims lost (by claimKey). */
    private readonly lost: (claims: Set<string>) => void,
    /** Called when tasks went back to the queue (so a claim looks at once). */
    private readonly requeued: () => void,
    private readonly leaseMs = REPLICA_LEASE_MS,
    now = Date.now(),
  ) {
    this.last = this.lastReclaim = this.renewed = now;
    this.renewMs = leaseMs / RENEWALS_PER_LEASE;
    this.stopAfterMs = leaseMs - this.renewMs;
  }

  /** Called by the engine's beat (every second): renews every third of the lease, reclaims every RECLAIM_MS. */
  tick(now = Date.now()): void {
    if (this.busy) return;
    const renew = now - this.last >= this.renewMs;
    if (!renew && now - this.lastReclaim < Math.min(RECLAIM_MS, this.renewMs)) return;
    this.busy = true;
    if (renew) this.last = now;
    this.lastReclaim = now;
    void (renew ? this.renew(now) : Promise.resolve())
      .then(() => this.reclaim(now))
      .catch((err) => {
        // A failed look is tried again in RECLAIM_MS; the renewals say what fails, and when to stop.
        if (!renew) return;
        this.log.warn("could not renew or reclaim task leases", { error: err });
        if (Date.now() - this.renewed < this.stopAfterMs) return;
        const all = new Set(this.running().map(claimKey));
        if (all.size === 0) return;
        this.log.warn("stopping every ingestion job: their leases could not be renewed", { jobs: all.size });
        this.lost(all);
      })
      .finally(() => (this.busy = false));
  }

  private async renew(now: number): Promise<void> {
    const claims = this.running();
    const held = await this.db.atomically((t) => renewLeases(t, claims, now + this.leaseMs));
    this.renewed = now;
    const lost = new Set(claims.map(claimKey).filter((k) => !held.has(k)));
    if (lost.size > 0) {
      this.log.warn("stopping ingestion jobs whose tasks another replica took or that ended", { jobs: lost.size });
      this.lost(lost);
    }
  }

  private async reclaim(now: number): Promise<void> {
    if (!(await anyExpired(this.db.reader, now, 2 * this.leaseMs))) return;
    const back = await this.db.atomically(async (t) => {
      const docs = await requeueExpired(t, now, 2 * this.leaseMs);
      await recordSourceEvents(t, "source.queued", docs, now);
      return docs.length;
    });
    if (back === 0) return;
    this.log.info("requeued tasks whose replica stopped renewing them", { documents: back });
    this.requeued();
  }
}

/**
 * Replicas' rows at the sink: of the documents `alive` whose rows come from a job of this
 * process (`running`, by document), those whose claim no longer holds (another replica
 * took the task, or a replace deleted it) are removed, so their rows are not written.
 */
export async function dropLostClaims(tx: Db, alive: Set<string>, running: Map<string, Claim>): Promise<void> {
  const mine = [...running.entries()].filter(([doc]) => alive.has(doc));
  if (mine.length === 0) return;
  const held = await heldClaims(
    tx,
    mine.map(([, c]) => c),
  );
  for (const [doc, c] of mine) if (!held.has(claimKey(c))) alive.delete(doc);
}

/**
 * A replica stopping gives back the claims its jobs did not end (they were stopped with
 * the workers), so another replica takes them now rather than after their leases.
 */
export async function giveBack(db: Store, claims: Claim[], log: Logger): Promise<void> {
  if (claims.length === 0) return;
  const now = Date.now();
  const docs = await db.atomically(async (t) => {
    const back = await releaseClaims(t, claims, now);
    await recordSourceEvents(t, "source.queued", back, now);
    return back;
  });
  log.info("gave unfinished ingestion tasks back to the queue", { tasks: claims.length, documents: docs.length });
}
