/**
 * The refresh schedule of url/api sources (docs/API.md, "Refresh and crawl"). Each
 * scheduled source has its due time in SQLite (source_fetches.next_check_at), so a
 * restart keeps it. A due source is queued as an ordinary task of the durable queue;
 * its next due time is set in the same transaction, one interval on, with up to a
 * tenth of the interval of jitter so sources created together drift apart.
 *
 * After a restart (or any pause) the sources that fell due meanwhile are spread over
 * the next interval (at most ten minutes), evenly with jitter, instead of all being
 * fetched at once; and a tick queues at most MAX_PER_TICK of them.
 */
import type { Db } from "../../db/client";
import type { Store } from "../../db/store";
import { findCollectionById } from "../../db/repo/collections";
import { findDocumentById } from "../../db/repo/documents";
import { pendingTasksOfDocument } from "../../db/repo/tasks";
import type { FetchSettings } from "../../core/fetch-settings";
import { dueRefetches, overdueRefetches, type SourceFetchPatch, saveSourceFetch } from "../../db/repo/source-fetches";
import type { Logger } from "../../log";
import { queueTask } from "../tasks/queue";

/** Sources queued per tick at most: 120 a minute, whatever fell due at once. */
export const MAX_PER_TICK = 10;
/** Overdue sources found at start are spread over at most this long. */
export const MAX_SPREAD_MS = 10 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The due time after a check at `now`: one interval on, plus up to a tenth of it. */
export function nextCheckAt(everySeconds: number, now: number, random = Math.random): string {
  return iso(now + everySeconds * 1000 * (1 + 0.1 * random()));
}

/** The stored form of the settings, with the next due time when a schedule is set. */
export function fetchRowOf(s: FetchSettings, now: number): SourceFetchPatch {
  const patch: SourceFetchPatch = {};
  if (s.refreshEvery !== undefined) {
    patch.refreshEvery = s.refreshEvery;
    patch.nextCheckAt = s.refreshEvery === null ? null : nextCheckAt(s.refreshEvery, now);
  }
  if (s.crawl !== undefined) patch.crawl = JSON.stringify(s.crawl);
  return patch;
}

/** The schedule's looks; services.ts runs tick() every RAGD_REFRESH_CHECK_EVERY (tools/scheduler.ts). */
export class RefreshScheduler {
  constructor(
    private readonly db: Store,
    /** Looks for work once sources were queued (the engine's kick). */
    private readonly kick: () => void,
    private readonly log: Logger,
  ) {}

  /** Spreads what fell due while ragd was stopped, before the first tick. */
  async start(now = Date.now()): Promise<void> {
    await this.spreadOverdue(now);
  }

  /**
   * Gives each overdue source a due time within the next min(interval, MAX_SPREAD_MS):
   * the i-th of n at (i + random) / n of that window, so they come one after another.
   */
  spreadOverdue(now: number, random = Math.random): Promise<number> {
    return this.db.atomically(async (t) => {
      const overdue = await overdueRefetches(t, iso(now));
      for (const [i, s] of overdue.entries()) {
        const window = Math.min((s.refreshEvery ?? 60) * 1000, MAX_SPREAD_MS);
        await saveSourceFetch(t, s.documentId, { nextCheckAt: iso(now + ((i + random()) / overdue.length) * window) });
      }
      return overdue.length;
    });
  }

  /**
   * Queues the sources that are due (up to MAX_PER_TICK) and books their next check. Returns
   * how many were queued. Replicas take turns (the store's `exclusive`): two reading the
   * same due sources at once would both queue them.
   */
  async tick(now = Date.now()): Promise<number> {
    let queued = 0;
    const queueDue = () =>
      this.db.atomically(async (t) => {
        let n = 0;
        for (const s of await dueRefetches(t, iso(now), MAX_PER_TICK)) {
          const next = s.refreshEvery ? nextCheckAt(s.refreshEvery, now) : null;
          await saveSourceFetch(t, s.documentId, { nextCheckAt: next });
          if (await queueRefetch(t, s.documentId, now)) n++;
        }
        return n;
      });
    try {
      queued = (await this.db.exclusive("refresh-schedule", queueDue)) ?? 0;
    } catch (err) {
      this.log.error("could not queue scheduled re-fetches", { error: err });
    }
    if (queued > 0) this.kick();
    return queued;
  }
}

/**
 * Queues a re-fetch of a url/api source (a sync of a folder source) unless one waits or runs already, or it waits
 * for nothing to fetch; true when a task was queued. Run it inside a transaction.
 */
export async function queueRefetch(t: Db, documentId: string, now: number): Promise<boolean> {
  const doc = await findDocumentById(t, documentId);
  const col = doc && (await findCollectionById(t, doc.collectionId));
  if (!doc || !col || !["url", "api", "folder", "s3", "git"].includes(doc.type)) return false;
  if ((await pendingTasksOfDocument(t, doc.id)).length > 0) return false;
  await queueTask(t, doc.id, col, now);
  return true;
}

/**
 * "Fetch again now": queues a re-fetch unless one waits or runs, and restarts a
 * schedule from now, in one transaction; true when a task was queued (then kick the engine).
 */
export function refetchNow(
  store: Store,
  documentId: string,
  refreshEvery: number | null,
  now = Date.now(),
): Promise<boolean> {
  return store.atomically(async (t) => {
    if (refreshEvery) await saveSourceFetch(t, documentId, { nextCheckAt: nextCheckAt(refreshEvery, now) });
    return queueRefetch(t, documentId, now);
  });
}
