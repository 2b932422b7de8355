/**
 * Builds every long-lived service from the configuration, in dependency order.
 * Routes receive the services they need; nothing reaches for globals.
 */
import { join } from "node:path";
import { sweepSnapshots } from "./backup/snapshot";
import type { Config } from "./config";
import { Collections } from "./core/collections";
import { openServerStore } from "./db/client";
import { openServingPgStore } from "./db/pg-store";
import type { CloseHow, Store } from "./db/store";
import { AdminService } from "./features/admin/service";
import { SingleSignOn } from "./features/auth/oidc";
import { AuthService } from "./features/auth/service";
import { BackupService } from "./features/backup/service";
import { DocumentService } from "./features/documents/service";
import { ReindexGate } from "./features/evals/gate";
import { EvalService } from "./features/evals/service";
import { WebhookDeliverer } from "./features/events/deliverer";
import { EventService } from "./features/events/service";
import { WebhookService } from "./features/events/webhooks";
import { QueryLog } from "./features/insight/query-log";
import { KbService } from "./features/kb/service";
import { KeyService } from "./features/keys/service";
import type { McpDeps } from "./features/mcp/routes";
import { SourceReader } from "./features/mcp/source-text";
import { PipelineService } from "./features/pipelines/service";
import { QueryService } from "./features/query/service";
import { SourceService } from "./features/sources/service";
import { TransferService } from "./features/transfer/service";
import { loadSecret } from "./files/signing";
import { objectStorage, servesAsReplica } from "./config-storage";
import { ReplicaWakeups } from "./features/events/replica-wakeups";
import { requireCommitSafeStore } from "./files/put-if-absent";
import { loadSharedSecret } from "./files/shared-secret";
import { BucketUploads } from "./features/sources/bucket-uploads";
import { DiskFileStore } from "./files/disk-store";
import { ObjectFileStore } from "./files/object-store";
import type { FileStore } from "./files/store";
import { housekeeping } from "./housekeeping";
import { EmbedMetrics } from "./embed/calls";
import { addCollectors } from "./features/health/collectors";
import { Metrics } from "./http/metrics";
import { DiskWatch } from "./ingest/disk-watch";
import { IngestEngine } from "./ingest/engine";
import { RefreshScheduler } from "./ingest/sync/refresh";
import { metadataLookup } from "./ingest/write/metadata-lookup";
import { WorkerPool } from "./ingest/run/pool";
import { reconcile, recoverInterrupted } from "./ingest/tasks/reconcile";
import type { Logger } from "./log";
import { throttledLogger } from "./log-throttle";
import { addPeriodicWork } from "./periodic-work";
import { type Clock, systemClock } from "./tools/clock";
import { limitMallocArenas } from "./tools/memory";
import { Scheduler } from "./tools/scheduler";
import { indexUpkeep } from "./upkeep";
import { Reranker } from "./retrieval/rerank";
import { Searcher } from "./retrieval/searcher";
import { childProcess } from "./vectors/index-build";
import { type BucketCache, startBucketCache } from "./vectors/bucket-cache";
import { lanceSession, openLance, type LanceConnection } from "./vectors/connection";
import { VectorStore } from "./vectors/store";
import { UPKEEP_TIMEOUT_MS } from "./vectors/upkeep-limits";
import { removeCloneIfGone, removeOrphanClones } from "./ingest/git/clones";
import { Passwords } from "./features/auth/passwords";

export interface Services {
  config: Config;
  log: Logger;
  db: Store;
  lance: LanceConnection;
  /** On a bucket: the local cache of the table files LanceDB reads through (vectors/bucket-cache.ts). */
  bucketCache: BucketCache | null;
  vectorStore: VectorStore;
  /** Uploaded files: in the data directory, or in the bucket of RAGD_STORAGE_URL. */
  files: FileStore;
  /** The data directory's files, for what works on them alone (backups, export, import); null on a bucket. */
  localFiles: DiskFileStore | null;
  /** Watches the bucket for file sources' uploads; null on disk, where they come through ragd. */
  bucketUploads: BucketUploads | null;
  metrics: Metrics;
  collections: Collections;
  engine: IngestEngine;
  /** Re-fetches url/api sources on their schedule (ingest/sync/refresh.ts). */
  refresh: RefreshScheduler;
  disk: DiskWatch;
  auth: AuthService;
  admin: AdminService;
  /** Single sign-on with the configured OpenID Connect provider; null when none is set. */
  sso: SingleSignOn | null;
  pipelines: PipelineService;
  keys: KeyService;
  queries: QueryService;
  evals: EvalService;
  sources: SourceService;
  documents: DocumentService;
  kbs: KbService;
  mcp: McpDeps;
  events: EventService;
  webhooks: WebhookService;
  deliverer: WebhookDeliverer;
  backups: BackupService;
  transfers: TransferService;
  /** Set once the server listens: the base of upload URLs. */
  baseUrl: { value: string };
  /** Every periodic job (periodic-work.ts); `tick(name)` runs one now. */
  scheduler: Scheduler;
  /** Replicas: wakes this process's event streams for events the others wrote. */
  wakeups: ReplicaWakeups | null;
  /** Housekeeping still running (the bucket's stale uploads being aborted): awaited at close. */
  background: Set<Promise<unknown>>;
}

/**
 * glibc malloc arenas for LanceDB's threads. Its default, 8 per core, left 14 arenas
 * holding about 250 MB after a load that had ended; with 2 (and the release when
 * ingestion goes quiet, below), bench/memory-load.ts settles near 300 MB. See
 * tools/memory.ts.
 */
const MALLOC_ARENAS = 2;

export async function createServices(config: Config, log: Logger, clock: Clock = systemClock): Promise<Services> {
  limitMallocArenas(MALLOC_ARENAS);
  // One of several replicas (docs/ARCHITECTURE.md, Several replicas), or a server alone.
  const replica = servesAsReplica(config);
  const db = config.databaseUrl
    ? await openServingPgStore(config.databaseUrl, replica ? "replica" : "alone")
    : openServerStore(config.dataDir, log);
  // Vectors and files in the data directory, or in a bucket (docs/ARCHITECTURE.md, Object storage).
  const storage = objectStorage(config);
  if (replica) await requireCommitSafeStore(storage!);
  const bucketCache =
    storage && config.bucketCacheMb > 0
      ? startBucketCache(storage, {
          dir: join(config.dataDir, "cache", "bucket"),
          maxBytes: config.bucketCacheMb * 2 ** 20,
        })
      : null;
  const lance = await openLance(storage ?? config.dataDir, lanceSession(config.indexCacheMb), bucketCache);
  const quiet = throttledLogger(log);
  const vectorStore = new VectorStore(lance, {
    log: (msg, fields) => log.info(msg, fields as Record<string, unknown>),
    metadataOf: metadataLookup(db),
    // ANN training in a child process leaves this process's LanceDB threads to the searches.
    indexBuilder: childProcess(storage ?? config.dataDir),
    // Every search of the table would say it again: once a minute at most.
    onLexicalError: (err) =>
      quiet.warn("a search's lexical candidates failed; its index answered alone", { error: String(err) }),
    upkeepLease: (name, fn) => db.exclusive(name, fn, UPKEEP_TIMEOUT_MS),
    sharedTables: replica,
    writeShare: config.writeSharePct / 100,
  });
  const localFiles = storage ? null : new DiskFileStore(config.dataDir);
  const bucketFiles = storage ? new ObjectFileStore(storage) : null;
  const files: FileStore = localFiles ?? bucketFiles!;
  const metrics = new Metrics();
  const collections = new Collections(db);
  const pool = new WorkerPool(config.workers, log, undefined, undefined, config.workerNice);
  // A Git source deleted while its fetch wrote into its clone: the clone goes once the fetch has stopped.
  pool.onStopped = (job) => {
    if (!job.git) return;
    removeCloneIfGone(db.reader, config.dataDir, job.document.id).catch((err) =>
      log.warn("could not remove a deleted Git source's clone", { source: job.document.id, error: err }),
    );
  };
  const disk = new DiskWatch({ db, dataDir: config.dataDir, minFreeMb: config.minFreeMb, log });
  const replicaLeaseMs = config.replicaLeaseMs;
  const engine = new IngestEngine({
    db,
    vectorStore: vectorStore,
    pool,
    files,
    config,
    log,
    disk,
    replica,
    replicaLeaseMs,
    replicaClaims: config.replicaClaims,
  });
  const passwords = new Passwords(config.passwordCost);
  const auth = new AuthService(db, config, passwords);
  const keys = new KeyService(db, !replica);
  const pipelines = new PipelineService(db, collections, config);
  const embedMetrics = new EmbedMetrics();
  pool.onEmbed = embedMetrics.record;
  const searcher = new Searcher(db, vectorStore, config, new Reranker(config.rerankUrl, log), embedMetrics.record);
  const queryLog = new QueryLog(db, config.queryLog === "on", clock);
  const queries = new QueryService(db, keys, searcher, config, queryLog);
  const evals = new EvalService(db, searcher);
  const baseUrl = { value: `http://${config.host}:${config.port}` };
  const secret = replica ? await loadSharedSecret(storage!) : loadSecret(config.dataDir);
  const sso = config.oidcIssuer ? new SingleSignOn(config, secret, log) : null;
  const bucketUploads =
    bucketFiles &&
    new BucketUploads({
      db,
      files: bucketFiles,
      log,
      finish: (doc, saved) => sources.finishUpload(doc, saved),
      replica,
    });
  const sources: SourceService = new SourceService({
    db,
    engine,
    vectorStore: vectorStore,
    files,
    secret,
    config,
    baseUrl: () => baseUrl.value,
    bucketUpload: bucketUploads && ((row, expires) => bucketUploads.grant(row, expires)),
    log: (msg, fields) => log.warn(msg, fields as Record<string, unknown>),
  });
  const documents = new DocumentService({
    db,
    engine,
    files,
    disk: localFiles,
    vectorStore: vectorStore,
    keys,
    config,
    log: (msg, fields) => log.warn(msg, fields as Record<string, unknown>),
  });
  const kbs = new KbService({ db, collections, engine, files, searcher, queryLog, config });
  const mcp: McpDeps = {
    queries,
    keys,
    reader: new SourceReader(db, vectorStore),
    db,
    log,
    baseUrl: () => baseUrl.value,
  };
  const events = new EventService(db, config.eventHeartbeatS * 1000);
  const admin = new AdminService(
    db,
    { deleteCollection: (id) => collections.deleteCollection(id), closeStreams: (ids) => events.closeStreamsOf(ids) },
    { defaultTier: config.defaultTier, baseUrl: () => baseUrl.value, passwords },
  );
  const webhooks = new WebhookService(db, config);
  const deliverer = new WebhookDeliverer({ db, config, log });
  collections.onCollectionDeleted(async (id) => {
    keys.forgetCollection(id);
    queryLog.forgetCollection(id);
    engine.cancelCollection(id);
    await files.removeCollection(id);
    await vectorStore.dropCollection(id);
    await removeOrphanClones(db.reader, config.dataDir); // its Git sources' clones
  });
  // Listening before the engine starts, so no built re-index goes unnoticed.
  await new ReindexGate({ db, vectorStore: vectorStore, engine, evals, log }).start();
  await recoverInterrupted({ db, files, log, replica, replicaLeaseMs });
  sweepSnapshots(config.dataDir); // a backup's staging copy left by a kill
  await removeOrphanClones(db.reader, config.dataDir);
  const backups = new BackupService(config.dataDir, vectorStore, localFiles, log, config.databaseUrl !== null);
  const transfers = new TransferService({
    db,
    vectorStore: vectorStore,
    pipelines,
    collections,
    config,
    auth,
    files: localFiles,
    filePath: (c, d) => localFiles!.pathOf(c, d),
    controlToken: backups.controlToken,
    // An export carries vectors as well as files: it may be larger than one upload.
    maxArchiveBytes: config.maxUploadMb * 20 * 1024 * 1024,
  });
  await reconcile({ db, vectorStore: vectorStore, engine, files, log, replica, replicaLeaseMs });
  engine.start();
  await bucketUploads?.start();
  const refresh = new RefreshScheduler(db, () => engine.kick(), log);
  await refresh.start(clock.now());
  const diskCheck = disk.start((id) => engine.enqueue(id));
  deliverer.start();
  const wakeups = replica ? new ReplicaWakeups(db, quiet) : null;
  await wakeups?.start();
  if (config.backupDir)
    backups.schedule({ dir: config.backupDir, everyMs: config.backupEveryMs, keep: config.backupKeep });
  const background = new Set<Promise<unknown>>();
  const tidy = () =>
    housekeeping({ db, auth, engine, vectorStore, events, files, storage, replica, log, quiet, background });
  tidy();
  const scheduler = new Scheduler((job, err) => quiet.warn("periodic work failed", { job, error: err }), clock);
  const upkeep = indexUpkeep({
    vectorStore: vectorStore,
    engine,
    disk,
    replica,
    quiet,
    clock,
    everyMs: config.upkeepEveryMs,
  });
  const periodic = { config, engine, upkeep, refresh, diskCheck, deliverer, keys, queryLog, tidy, wakeups };
  addPeriodicWork(scheduler, { ...periodic, bucketUploads, log });
  scheduler.start();
  metrics.gauge("ragd_ingest_workers_busy", "Ingestion workers running a job.", () => pool.busy);
  addCollectors(metrics, { db, engine, vectorStore: vectorStore, embed: embedMetrics });
  return {
    config,
    log,
    db,
    lance,
    bucketCache,
    vectorStore: vectorStore,
    files,
    localFiles,
    bucketUploads,
    metrics,
    collections,
    engine,
    refresh,
    disk,
    auth,
    admin,
    sso,
    pipelines,
    keys,
    queries,
    evals,
    sources,
    documents,
    kbs,
    mcp,
    events,
    webhooks,
    deliverer,
    backups,
    transfers,
    baseUrl,
    scheduler,
    wakeups,
    background,
  };
}

/** Stops background work and releases what the services hold (CloseHow); pending writes are flushed first. */
export async function closeServices(s: Services, how: CloseHow = {}): Promise<void> {
  s.events.closeStreams();
  s.scheduler.stop();
  await Promise.allSettled(s.background);
  await s.bucketUploads?.stop();
  await s.backups.stop();
  await s.engine.stop();
  await s.deliverer.stop();
  await s.keys.flush();
  await s.queries.log.flush().catch((err) => s.log.warn("could not write the query log", { error: err }));
  s.vectorStore.close();
  s.lance.close();
  s.bucketCache?.stop();
  await s.db.close(how);
}
