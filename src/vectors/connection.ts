/**
 * The LanceDB connection under `<dataDir>/lance`. Opened with a read consistency
 * interval of 0 so that every read sees the latest committed writes (a default
 * connection never sees another connection's writes).
 */
import * as lancedb from "@lancedb/lancedb";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export type LanceConnection = lancedb.Connection;

export async function openLance(dataDir: string): Promise<LanceConnection> {
  const dir = join(dataDir, "lance");
  mkdirSync(dir, { recursive: true });
  return lancedb.connect(dir, { readConsistencyInterval: 0 });
}
