/** Named queries on API keys. */
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { apiKeys, collections, type ApiKey, type Collection } from "../schema";

export async function insertApiKey(db: Db, key: ApiKey): Promise<void> {
  db.insert(apiKeys).values(key).run();
}

export async function listApiKeys(db: Db, collectionId: string): Promise<ApiKey[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.collectionId, collectionId)).orderBy(desc(apiKeys.id)).all();
}

export async function findApiKey(db: Db, collectionId: string, keyId: string): Promise<ApiKey | undefined> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.collectionId, collectionId), eq(apiKeys.id, keyId)))
    .get();
}

/** The key and its pipeline for a key hash, or undefined for an unknown or revoked key. */
export async function findApiKeyByHash(
  db: Db,
  keyHash: string,
): Promise<{ key: ApiKey; collection: Collection } | undefined> {
  return db
    .select({ key: apiKeys, collection: collections })
    .from(apiKeys)
    .innerJoin(collections, eq(collections.id, apiKeys.collectionId))
    .where(eq(apiKeys.keyHash, keyHash))
    .get();
}

export async function deleteApiKey(db: Db, keyId: string): Promise<void> {
  db.delete(apiKeys).where(eq(apiKeys.id, keyId)).run();
}

/** Writes a batch of last-used times (the caller's transaction holds them together). */
export async function touchApiKeys(db: Db, times: Map<string, string>): Promise<void> {
  for (const [id, at] of times) db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id)).run();
}
