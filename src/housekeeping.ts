/**
 * What `ragd serve` tidies once an hour (and at start; services.ts): expired sessions,
 * ended tasks and old events; in a bucket, multipart uploads a killed process left open
 * (files/orphans.ts); with replicas, files no document names (ingest/tasks/reconcile.ts), which
 * a replica's start keeps while they are newer than any upload on its way; and in a bucket,
 * the objects of tables no table version names, once older than any write
 * (UNNAMED_GRACE_MS): what a process killed between writing a table's files and
 * committing them left.
 */
import type { ObjectStorage } from "./config-storage";
import type { Store } from "./db/store";
import type { AuthService } from "./features/auth/service";
import type { EventService } from "./features/events/service";
import { abortStaleUploads, STALE_UPLOAD_MS } from "./files/orphans";
import type { FileStore } from "./files/store";
import type { IngestEngine } from "./ingest/engine";
import { removeUnnamedFiles } from "./ingest/tasks/reconcile";
import type { Logger } from "./log";
import type { VectorStore } from "./vectors/store";
import { UNNAMED_GRACE_MS, UPKEEP_TIMEOUT_MS } from "./vectors/upkeep-limits";

export interface HousekeepingParts {
  db: Store;
  auth: AuthService;
  engine: IngestEngine;
  vectorStore: VectorStore;
  events: EventService;
  files: FileStore;
  storage: ObjectStorage | null;
  replica: boolean;
  log: Logger;
  /** For failures that recur every hour: once, then once a minute. */
  quiet: Logger;
  /** The longer work still running, which stopping the services waits for. */
  background: Set<Promise<unknown>>;
}

/** One round of housekeeping; the longer parts run on in `background`. */
export function housekeeping(p: HousekeepingParts): void {
  const failed = (what: string) => (err: unknown) => p.quiet.warn(`could not prune ${what}`, { error: String(err) });
  void p.auth.pruneSessions().catch(failed("sessions"));
  void p.engine.pruneTasks().catch(failed("tasks"));
  void p.events.prune().catch(failed("events"));
  const inBackground = (work: Promise<unknown>) => {
    const running = work.finally(() => p.background.delete(running));
    p.background.add(running);
  };
  const { storage } = p;
  if (storage)
    inBackground(
      abortStaleUploads(storage).catch((err) => p.quiet.warn("could not abort stale uploads", { error: String(err) })),
    );
  if (p.replica)
    inBackground(
      p.db
        .exclusive("file-orphans", () => removeUnnamedFiles(p, Date.now() - STALE_UPLOAD_MS))
        .then((n) => n && p.log.info("removed files no source names", { count: n }))
        .catch((err) => p.quiet.warn("could not remove unnamed files", { error: String(err) })),
    );
  // On a data directory, upkeep's first pass after a restart leaves them to LanceDB's own week.
  if (storage)
    inBackground(
      p.db
        .exclusive(
          "unnamed-objects",
          () => p.vectorStore.removeUnnamed(new Date(Date.now() - UNNAMED_GRACE_MS)),
          UPKEEP_TIMEOUT_MS,
        )
        .catch((err) => p.quiet.warn("could not remove the tables' unnamed files", { error: String(err) })),
    );
}
