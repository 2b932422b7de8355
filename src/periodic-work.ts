/**
 * Every periodic job of `ragd serve`, on the one scheduler createServices owns
 * (tools/scheduler.ts), each with its period from the settings (config-time.ts). A test
 * shortens a period, or runs `services.scheduler.tick("upkeep")` instead of waiting.
 *
 * | job            | period                    | work                                                  |
 * | -------------- | ------------------------- | ----------------------------------------------------- |
 * | ingest         | 1 s                       | tasks that fell due; replicas' leases (leases.ts)     |
 * | upkeep         | RAGD_UPKEEP_EVERY, 10 s   | index upkeep (upkeep.ts)                              |
 * | refresh        | RAGD_REFRESH_CHECK_EVERY, 5 s | url/api sources due a re-fetch (ingest/sync/refresh.ts) |
 * | disk           | RAGD_DISK_CHECK_EVERY, 2 s | free space, and sources waiting for it (disk-watch.ts) |
 * | deliveries     | 1 s                       | webhook deliveries due (features/events/deliverer.ts) |
 * | key-use        | 5 s                       | API keys' last use written (features/keys/service.ts)  |
 * | query-log      | 2 s                       | logged searches written (features/insight/query-log.ts) |
 * | query-log-purge | RAGD_HOUSEKEEPING_EVERY, 1 h | logged searches past their retention deleted        |
 * | housekeeping   | RAGD_HOUSEKEEPING_EVERY, 1 h | expired sessions, ended tasks, old events (housekeeping.ts) |
 * | replica-events | 0.5 s, replicas           | events other replicas wrote (replica-wakeups.ts)      |
 * | bucket-uploads | 2 s, in a bucket          | uploads that ended (features/sources/bucket-uploads.ts) |
 */
import type { Config } from "./config";
import type { WebhookDeliverer } from "./features/events/deliverer";
import type { ReplicaWakeups } from "./features/events/replica-wakeups";
import type { QueryLog } from "./features/insight/query-log";
import type { KeyService } from "./features/keys/service";
import type { BucketUploads } from "./features/sources/bucket-uploads";
import type { IngestEngine } from "./ingest/engine";
import type { RefreshScheduler } from "./ingest/sync/refresh";
import type { Logger } from "./log";
import type { Scheduler } from "./tools/scheduler";

export interface PeriodicParts {
  config: Config;
  engine: IngestEngine;
  /** One step of index upkeep (upkeep.ts). */
  upkeep: () => Promise<void>;
  refresh: RefreshScheduler;
  /** One look at the disk's free space (DiskWatch.start's check). */
  diskCheck: () => Promise<void>;
  deliverer: WebhookDeliverer;
  keys: KeyService;
  queryLog: QueryLog;
  /** One round of housekeeping (housekeeping.ts). */
  tidy: () => void;
  wakeups: ReplicaWakeups | null;
  bucketUploads: BucketUploads | null;
  log: Logger;
}

/** Adds every job to `s`, which createServices then starts. */
export function addPeriodicWork(s: Scheduler, p: PeriodicParts): void {
  const { config: c, clock } = { config: p.config, clock: s.clock };
  s.add("ingest", c.ingestTickMs, () => p.engine.beat(clock.now()));
  s.add("upkeep", c.upkeepEveryMs, p.upkeep);
  s.add("refresh", c.refreshCheckEveryMs, () => p.refresh.tick(clock.now()));
  s.add("disk", c.diskCheckEveryMs, p.diskCheck);
  s.add("deliveries", c.deliveryTickMs, () => p.deliverer.tick());
  s.add("key-use", c.keyUseFlushMs, () =>
    p.keys.flush().catch((err) => p.log.warn("could not write API keys' last use", { error: err })),
  );
  s.add("query-log", c.queryLogFlushMs, () =>
    p.queryLog.flush().catch((err) => p.log.warn("could not write the query log", { error: err })),
  );
  s.add("query-log-purge", c.housekeepingEveryMs, () => p.queryLog.purge());
  s.add("housekeeping", c.housekeepingEveryMs, p.tidy);
  const { wakeups, bucketUploads } = p;
  if (wakeups) s.add("replica-events", c.replicaEventPollMs, () => wakeups.look());
  if (bucketUploads) s.add("bucket-uploads", c.bucketUploadPollMs, () => bucketUploads.tick());
}
