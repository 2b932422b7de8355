/**
 * The same repository code on both metadata engines: a SQLite store in a temporary data
 * directory, and, where the system's PostgreSQL server is installed (.ci/run installs it),
 * a PostgreSQL store on a throwaway server started here. A test file runs its cases once
 * per engine, so a difference between the two is a failing case named after the engine.
 */
import { rmSync } from "node:fs";
import { openStore } from "../../src/db/client";
import { openPgStore } from "../../src/db/pg-store";
import { insertCollection } from "../../src/db/repo/collections";
import { insertUser } from "../../src/db/repo/users";
import type { DocumentRow } from "../../src/db/schema";
import type { Store } from "../../src/db/store";
import { tempDir } from "./app";
import { havePostgres, startPostgres } from "./postgres";

export interface Engine {
  name: "sqlite" | "postgres";
  store: Store;
}

/** Opens one store per engine available; `close` stops them and removes their data. */
export async function openEngines(): Promise<{ engines: Engine[]; close(): Promise<void> }> {
  const dir = tempDir("ragd-engines-");
  const engines: Engine[] = [{ name: "sqlite", store: openStore(dir) }];
  const pg = havePostgres ? await startPostgres() : null;
  if (pg) engines.push({ name: "postgres", store: await openPgStore(await pg.createDatabase("ragd_engines")) });
  return {
    engines,
    async close() {
      for (const e of engines) await e.store.close();
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let seq = 0;

/** A user and one pipeline of theirs, through the repository; their ids. */
export async function seedPipeline(store: Store): Promise<{ userId: string; collectionId: string }> {
  const userId = Bun.randomUUIDv7();
  const collectionId = Bun.randomUUIDv7();
  const now = new Date().toISOString();
  await store.atomically(async (tx) => {
    await insertUser(tx, {
      id: userId,
      email: `u${++seq}-${userId}@example.com`,
      passwordHash: "x",
      tier: "free",
      createdAt: now,
    });
    await insertCollection(tx, {
      id: collectionId,
      userId,
      kind: "pipeline",
      name: `Pipeline ${seq}`,
      description: null,
      chunkingStrategy: "recursive",
      chunkSize: 1000,
      chunkOverlap: 200,
      embeddingModel: "builtin",
      indexModel: "builtin",
      vectorProvider: "lancedb",
      retrievalTopK: 5,
      createdAt: now,
      updatedAt: now,
    });
  });
  return { userId, collectionId };
}

/** A document row of `collectionId` as ingestion stores it, queued, created at `createdAt`. */
export function documentRow(
  collectionId: string,
  over: Partial<DocumentRow> = {},
  createdAt = "2030-01-01T00:00:00.000Z",
): DocumentRow {
  return {
    id: Bun.randomUUIDv7(),
    collectionId,
    type: "text",
    name: "a text",
    contentLength: null,
    url: null,
    urlCredentials: null,
    fileName: null,
    fileSize: null,
    filePath: null,
    status: "queued",
    error: null,
    chunkCount: 0,
    progressDone: 0,
    progressTotal: 0,
    progressUnit: "chunks",
    createdAt,
    updatedAt: createdAt,
    indexedAt: null,
    metadata: "{}",
    externalId: null,
    contentHash: null,
    ocr: null,
    ...over,
  };
}
