/** Named queries on API keys. */
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { first, tables } from "../dialect";
import type { ApiKey, Collection } from "../schema";

export async function insertApiKey(db: Db, key: ApiKey): Promise<void> {
  const { apiKeys } = tables(db);
  await db.insert(apiKeys).values(key);
}

export async function listApiKeys(db: Db, collectionId: string): Promise<ApiKey[]> {
  const { apiKeys } = tables(db);
  return await db.select().from(apiKeys).where(eq(apiKeys.collectionId, collectionId)).orderBy(desc(apiKeys.id));
}

export async function findApiKey(db: Db, collectionId: string, keyId: string): Promise<ApiKey | undefined> {
  const { apiKeys } = tables(db);
  return first(
    await db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.collectionId, collectionId), eq(apiKeys.id, keyId))),
  );
}

/** The key and its pipeline for a key hash, or undefined for an unknown or revoked key. */
export function findApiKeyByHash(db: Db, keyHash: string): Promise<KeyWithPipeline | undefined> {
  return findKeyWhere(db, (apiKeys) => eq(apiKeys.keyHash, keyHash));
}

/** The key and its pipeline for a key id (a tenant token names its key by id), or undefined. */
export function findApiKeyById(db: Db, keyId: string): Promise<KeyWithPipeline | undefined> {
  return findKeyWhere(db, (apiKeys) => eq(apiKeys.id, keyId));
}

type KeyWithPipeline = { key: ApiKey; collection: Collection };

async function findKeyWhere(
  db: Db,
  where: (apiKeys: ReturnType<typeof tables>["apiKeys"]) => SQL | undefined,
): Promise<KeyWithPipeline | undefined> {
  const { apiKeys, collections } = tables(db);
  return first(
    await db
      .select({ key: apiKeys, collection: collections })
      .from(apiKeys)
      .innerJoin(collections, eq(collections.id, apiKeys.collectionId))
      .where(where(apiKeys)),
  );
}

export async function deleteApiKey(db: Db, keyId: string): Promise<void> {
  const { apiKeys } = tables(db);
  await db.delete(apiKeys).where(eq(apiKeys.id, keyId));
}

/** Writes a batch of last-used times (the caller's transaction holds them together). */
export async function touchApiKeys(db: Db, times: Map<string, string>): Promise<void> {
  const { apiKeys } = tables(db);
  for (const [id, at] of times) await db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
}
