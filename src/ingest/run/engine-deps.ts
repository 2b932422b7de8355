/**
 * What the ingestion engine is built from, and hands on to its scheduler and claim window:
 * apart from engine.ts so that they read it without importing the engine that runs them.
 */
import type { Store } from "../../db/store";
import type { FileStore } from "../../files/store";
import type { Logger } from "../../log";
import type { VectorStore } from "../../vectors/store";
import type { DiskGate } from "../disk-watch";
import type { JobSettings } from "../tasks/job-for";
import type { WorkerPool } from "./pool";

export interface EngineDeps {
  db: Store;
  vectorStore: VectorStore;
  pool: WorkerPool;
  files: FileStore;
  /** What the jobs are built from (tasks/job-for.ts). */
  config: JobSettings["config"];
  log: Logger;
  /** Free space on the data directory's disk (see disk-watch.ts); without it, ingestion never waits for space. */
  disk?: DiskGate;
  /** One of several replicas on one database: short task leases, renewed (tasks/leases.ts). */
  replica?: boolean;
  /** A replica's task lease (RAGD_REPLICA_LEASE); tasks/leases.ts REPLICA_LEASE_MS unless set. */
  replicaLeaseMs?: number;
  /** A replica's bound on the tasks it holds, per worker (RAGD_REPLICA_CLAIMS; claim-window.ts). */
  replicaClaims?: number;
}
