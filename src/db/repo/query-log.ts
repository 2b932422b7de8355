/**
 * Named queries on the query log (tables/insight.ts) and on what the Insight view reads
 * beside it: documents' indexing times and evaluation runs. Every read is bounded by a
 * limit, so a pipeline asked a million times costs the same as one asked a thousand.
 */
import { and, asc, count, desc, eq, gte, inArray, isNotNull, lt, max, sql } from "drizzle-orm";
import type { Db } from "../client";
import { tables } from "../dialect";
import type { QueryLogRow } from "../schema";

/** Rows of one INSERT: 12 columns each stays far below either engine's parameter limit. */
const INSERT_ROWS = 1000;

/** Writes log rows; rows of collections deleted meanwhile are left out (their key would fail). */
export async function insertQueryLogRows(db: Db, rows: QueryLogRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const { collections, queryLog } = tables(db);
  const ids = [...new Set(rows.map((r) => r.collectionId))];
  const alive = new Set(
    (await db.select({ id: collections.id }).from(collections).where(inArray(collections.id, ids))).map((r) => r.id),
  );
  const kept = rows.filter((r) => alive.has(r.collectionId));
  for (let i = 0; i < kept.length; i += INSERT_ROWS) await db.insert(queryLog).values(kept.slice(i, i + INSERT_ROWS));
  return kept.length;
}

/** The names of these API keys, by id (a key revoked meanwhile is missing). */
export async function findKeyNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { apiKeys } = tables(db);
  const rows = await db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(inArray(apiKeys.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Collections that have log rows, with their retention in days. */
export async function listLoggedCollections(db: Db): Promise<{ id: string; days: number }[]> {
  const { collections, queryLog } = tables(db);
  const logged = db.selectDistinct({ id: queryLog.collectionId }).from(queryLog);
  return await db
    .select({ id: collections.id, days: collections.queryLogDays })
    .from(collections)
    .where(inArray(collections.id, logged));
}

/** Deletes one collection's rows older than `before` (ISO 8601); how many went. */
export async function purgeQueryLogBefore(db: Db, collectionId: string, before: string): Promise<number> {
  const { queryLog } = tables(db);
  const gone = await db
    .delete(queryLog)
    .where(and(eq(queryLog.collectionId, collectionId), lt(queryLog.at, before)))
    .returning({ id: queryLog.id });
  return gone.length;
}

/** Deletes every row (the server forbids the log: RAGD_QUERY_LOG=off). */
export async function purgeAllQueryLog(db: Db): Promise<void> {
  const { queryLog } = tables(db);
  await db.delete(queryLog);
}

/** One collection's rows since `since`, newest first, at most `limit`: the timing of each search. */
export async function listQueryTimes(db: Db, collectionId: string, since: string, limit: number) {
  const { queryLog } = tables(db);
  return await db
    .select({ at: queryLog.at, latencyMs: queryLog.latencyMs, noRelevant: queryLog.noRelevant })
    .from(queryLog)
    .where(and(eq(queryLog.collectionId, collectionId), gte(queryLog.at, since)))
    .orderBy(desc(queryLog.at))
    .limit(limit);
}

/** The most frequent queries since `since` (case folded), with how often and when last; `noRelevant` keeps only those that found nothing relevant. */
export async function listFrequentQueries(
  db: Db,
  collectionId: string,
  since: string,
  opts: { limit: number; noRelevant?: boolean },
) {
  const { queryLog } = tables(db);
  const where = [eq(queryLog.collectionId, collectionId), gte(queryLog.at, since)];
  if (opts.noRelevant) where.push(eq(queryLog.noRelevant, true));
  const folded = sql`lower(${queryLog.query})`;
  const n = count();
  return await db
    .select({ query: sql<string>`min(${queryLog.query})`, count: n, lastAt: max(queryLog.at) })
    .from(queryLog)
    .where(and(...where))
    .groupBy(folded)
    .orderBy(desc(n), desc(max(queryLog.at)))
    .limit(opts.limit);
}

/** The newest log rows of a collection, for the owner to read (never the results: they are not kept). */
export async function listQueryLog(db: Db, collectionId: string, limit: number, offset: number) {
  const { queryLog } = tables(db);
  return await db
    .select()
    .from(queryLog)
    .where(eq(queryLog.collectionId, collectionId))
    .orderBy(desc(queryLog.at), desc(queryLog.id))
    .limit(limit)
    .offset(offset);
}

/** When each document indexed since `since` was last indexed, with its chunks, oldest first, at most `limit`. */
export async function listIndexedSince(db: Db, collectionId: string, since: string, limit: number) {
  const { documents } = tables(db);
  return await db
    .select({ at: documents.indexedAt, chunks: documents.chunkCount })
    .from(documents)
    .where(
      and(eq(documents.collectionId, collectionId), isNotNull(documents.indexedAt), gte(documents.indexedAt, since)),
    )
    .orderBy(asc(documents.indexedAt))
    .limit(limit);
}

/** A collection's evaluation runs with their set's name, oldest first, at most `limit` (the newest ones). */
export async function listEvalRunsOf(db: Db, collectionId: string, limit: number) {
  const { evalRuns, evalSets } = tables(db);
  const rows = await db
    .select({
      setId: evalRuns.setId,
      setName: evalSets.name,
      kind: evalRuns.kind,
      result: evalRuns.result,
      createdAt: evalRuns.createdAt,
    })
    .from(evalRuns)
    .innerJoin(evalSets, eq(evalRuns.setId, evalSets.id))
    .where(eq(evalSets.collectionId, collectionId))
    .orderBy(desc(evalRuns.createdAt))
    .limit(limit);
  return rows.reverse();
}
