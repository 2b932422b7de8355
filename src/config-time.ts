/**
 * The periods of ragd's periodic work (tools/scheduler.ts) and the replicas' task lease,
 * read like any other setting (config.ts). The defaults are the periods ragd always ran
 * with; a test shortens them to step work it would otherwise wait for
 * (docs/configuration.md, "Time and periodic work").
 */
import { interval } from "./config-values";

export interface TimeConfig {
  /** Time between two looks of the index upkeep (compaction, full-text catch-up, ANN training). */
  upkeepEveryMs: number;
  /** Time between two rounds of housekeeping (expired sessions, ended tasks, old events). */
  housekeepingEveryMs: number;
  /** Time between two looks at the refresh schedule of url/api sources. */
  refreshCheckEveryMs: number;
  /** Time between two measures of the data directory's free space. */
  diskCheckEveryMs: number;
  /** How long a replica's claim on a task holds without a renewal (docs/operations.md, Several replicas). */
  replicaLeaseMs: number;
  /** The ingestion loop: how often it looks for tasks (and renews or reclaims leases). Not a setting of its own. */
  ingestTickMs: number;
  /** How often due webhook deliveries are looked for. Not a setting of its own. */
  deliveryTickMs: number;
  /** How often a replica looks for events the others wrote. Not a setting of its own. */
  replicaEventPollMs: number;
  /** How often a bucket's staging area is looked at while uploads may come. Not a setting of its own. */
  bucketUploadPollMs: number;
  /** How often API keys' last use is written. Not a setting of its own. */
  keyUseFlushMs: number;
  /** How often logged searches are written (features/insight/query-log.ts). Not a setting of its own. */
  queryLogFlushMs: number;
}

/** The time settings' flags, variables and parsers (config.ts reads them with the others). */
export const TIME_SETTINGS = [
  { key: "upkeepEveryMs", flag: "upkeep-every", env: "RAGD_UPKEEP_EVERY", parse: interval(100, 3_600_000) },
  {
    key: "housekeepingEveryMs",
    flag: "housekeeping-every",
    env: "RAGD_HOUSEKEEPING_EVERY",
    parse: interval(1000, 86_400_000),
  },
  {
    key: "refreshCheckEveryMs",
    flag: "refresh-check-every",
    env: "RAGD_REFRESH_CHECK_EVERY",
    parse: interval(100, 3_600_000),
  },
  { key: "diskCheckEveryMs", flag: "disk-check-every", env: "RAGD_DISK_CHECK_EVERY", parse: interval(100, 3_600_000) },
  { key: "replicaLeaseMs", flag: "replica-lease", env: "RAGD_REPLICA_LEASE", parse: interval(3000, 3_600_000) },
] as const;

export function timeDefaults(): TimeConfig {
  return {
    upkeepEveryMs: 10_000,
    housekeepingEveryMs: 3_600_000,
    refreshCheckEveryMs: 5000,
    diskCheckEveryMs: 2000,
    replicaLeaseMs: 30_000,
    ingestTickMs: 1000,
    deliveryTickMs: 1000,
    replicaEventPollMs: 500,
    bucketUploadPollMs: 2000,
    keyUseFlushMs: 5000,
    queryLogFlushMs: 2000,
  };
}
