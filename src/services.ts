/**
 * Builds every long-lived service from the configuration, in dependency order.
 * Routes receive the services they need; nothing reaches for globals.
 */
import type { Config } from "./config";
import { Collections } from "./core/collections";
import { openDb, type Db } from "./db/client";
import { AuthService } from "./features/auth/service";
import { KeyService } from "./features/keys/service";
import { PipelineService } from "./features/pipelines/service";
import { QueryService } from "./features/query/service";
import { Metrics } from "./http/metrics";
import type { Logger } from "./log";
import { openLance, type LanceConnection } from "./vectors/connection";

export interface Services {
  config: Config;
  log: Logger;
  db: Db;
  lance: LanceConnection;
  metrics: Metrics;
  collections: Collections;
  auth: AuthService;
  pipelines: PipelineService;
  keys: KeyService;
  queries: QueryService;
}

export async function createServices(config: Config, log: Logger): Promise<Services> {
  const db = openDb(config.dataDir);
  const lance = await openLance(config.dataDir);
  const metrics = new Metrics();
  const collections = new Collections(db);
  const auth = new AuthService(db, config);
  const keys = new KeyService(db);
  const pipelines = new PipelineService(db, collections, config);
  const queries = new QueryService(db, keys, config);
  collections.onCollectionDeleted((id) => keys.forgetCollection(id));
  return { config, log, db, lance, metrics, collections, auth, pipelines, keys, queries };
}

/** Releases what the services hold; pending writes are flushed first. */
export function closeServices(s: Services): void {
  s.keys.flush();
  s.lance.close();
  s.db.$client.close();
}
