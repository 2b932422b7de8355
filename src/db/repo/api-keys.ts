/** Named queries on API keys. */
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { apiKeys, collections, type ApiKey, type Collection } from "../schema";

export function insertApiKey(db: Db, key: ApiKey): void {
  db.insert(apiKeys).values(key).run();
}

export function listApiKeys(db: Db, collectionId: string): ApiKey[] {
  return db.select().from(apiKeys).where(eq(apiKeys.collectionId, collectionId)).orderBy(desc(apiKeys.id)).all();
}

export function findApiKey(db: Db, collectionId: string, keyId: string): ApiKey | undefined {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.collectionId, collectionId), eq(apiKeys.id, keyId)))
    .get();
}

/** The key and its pipeline for a key hash, or undefined for an unknown or revoked key. */
export function findApiKeyByHash(db: Db, keyHash: string): { key: ApiKey; collection: Collection } | undefined {
  return db
    .select({ key: apiKeys, collection: collections })
    .from(apiKeys)
    .innerJoin(collections, eq(collections.id, apiKeys.collectionId))
    .where(eq(apiKeys.keyHash, keyHash))
    .get();
}

export function deleteApiKey(db: Db, keyId: string): void {
  db.delete(apiKeys).where(eq(apiKeys.id, keyId)).run();
}

/** Writes a batch of last-used times in one transaction. */
export function touchApiKeys(db: Db, times: Map<string, string>): void {
  db.transaction((tx) => {
    for (const [id, at] of times) tx.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id)).run();
  });
}
