/**
 * Named queries on collections: pipelines and knowledge bases are both rows here,
 * told apart by `kind`. Status and counts are derived from their documents.
 */
import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { first, isPg, tables } from "../dialect";
import { once, ph } from "../prepared";
import type { Collection, NewCollection } from "../schema";

export type CollectionKind = Collection["kind"];
export type CollectionStatus = "empty" | "processing" | "error" | "ready";

export interface CollectionStats {
  status: CollectionStatus;
  sourceCount: number;
  chunkCount: number;
}

// Spelled out in full: drizzle renders a column as a bare "id" inside a select,
// which the subquery would read as the document's own id.
const outerId = sql.raw(`"collections"."id"`);

/** A collection's status from its documents (docs/API.md, "The pipeline object"), over `documents d`. */
const statusCase = {
  sqlite: sql.raw(`CASE
    WHEN count(*) = 0 THEN 'empty'
    WHEN sum(d.status IN ('queued','processing')) > 0 THEN 'processing'
    WHEN sum(d.status = 'failed') > 0 THEN 'error'
    ELSE 'ready' END`),
  // PostgreSQL sums no booleans: bool_or asks the same (no document is ruled out above).
  pg: sql.raw(`CASE
    WHEN count(*) = 0 THEN 'empty'
    WHEN bool_or(d.status IN ('queued','processing')) THEN 'processing'
    WHEN bool_or(d.status = 'failed') THEN 'error'
    ELSE 'ready' END`),
};
const statusCaseOf = (db: Db) => (isPg(db) ? statusCase.pg : statusCase.sqlite);

/** SQL that derives a collection's status, for filters on it. */
const statusSql = (db: Db) =>
  sql<CollectionStatus>`(SELECT ${statusCaseOf(db)} FROM ${tables(db).documents} d WHERE d.collection_id = ${outerId})`;

/**
 * A collection's status and counts in one pass over its documents (three subqueries, one
 * per figure, each walked them all: a pipeline list polled while 5,000 documents ingest
 * took a third longer), packed as "status sources chunks" and unpacked here.
 */
const statsSql = (db: Db) =>
  sql<string>`(SELECT ${statusCaseOf(db)} || ' ' || count(*) || ' ' || coalesce(sum(d.chunk_count), 0)
  FROM ${tables(db).documents} d WHERE d.collection_id = ${outerId})`.mapWith((packed: string): CollectionStats => {
    const [status, sources, chunks] = packed.split(" ") as [CollectionStatus, string, string];
    return { status, sourceCount: Number(sources), chunkCount: Number(chunks) };
  });

const withStats = (db: Db) => ({ row: tables(db).collections, stats: statsSql(db) });
const flat = ({ row, stats }: { row: Collection; stats: CollectionStats }): CollectionWithStats => ({ row, ...stats });

export type CollectionWithStats = { row: Collection } & CollectionStats;

export async function insertCollection(db: Db, c: NewCollection): Promise<void> {
  const { collections } = tables(db);
  await db.insert(collections).values(c);
}

/** One collection of a user, with its derived stats; undefined when not theirs. */
export async function findCollection(
  db: Db,
  userId: string,
  kind: CollectionKind,
  id: string,
): Promise<CollectionWithStats | undefined> {
  const { collections } = tables(db);
  const r = first(
    await db
      .select(withStats(db))
      .from(collections)
      .where(and(eq(collections.id, id), eq(collections.userId, userId), eq(collections.kind, kind))),
  );
  return r && flat(r);
}

const owned = (db: Db) => {
  const { collections } = tables(db);
  return db
    .select()
    .from(collections)
    .where(and(eq(collections.id, ph("id")), eq(collections.userId, ph("userId")), eq(collections.kind, ph("kind"))))
    .prepare();
};

/** A user's collection row without derived stats: the cheap ownership check for hot paths. */
export async function findOwnedCollection(
  db: Db,
  userId: string,
  kind: CollectionKind,
  id: string,
): Promise<Collection | undefined> {
  return first(await once(db, owned).execute({ id, userId, kind }));
}

const byId = (db: Db) => {
  const { collections } = tables(db);
  return db
    .select()
    .from(collections)
    .where(eq(collections.id, ph("id")))
    .prepare();
};

export async function findCollectionById(db: Db, id: string): Promise<Collection | undefined> {
  return first(await once(db, byId).execute({ id }));
}

export interface ListFilter {
  userId: string;
  kind: CollectionKind;
  search?: string;
  status?: CollectionStatus;
  limit: number;
  offset: number;
}

/** A page of a user's collections, newest first, with the total that matched. */
export async function listCollections(db: Db, f: ListFilter): Promise<{ rows: CollectionWithStats[]; total: number }> {
  const { collections } = tables(db);
  const where: SQL[] = [eq(collections.userId, f.userId), eq(collections.kind, f.kind)];
  if (f.search) {
    const name = sql`lower(${collections.name})`;
    const search = sql`lower(${f.search})`;
    where.push(isPg(db) ? sql`strpos(${name}, ${search}) > 0` : sql`instr(${name}, ${search}) > 0`);
  }
  if (f.status) where.push(sql`${statusSql(db)} = ${f.status}`);
  const cond = and(...where);
  const total = first(await db.select({ n: count() }).from(collections).where(cond))?.n ?? 0;
  const rows = (
    await db
      .select(withStats(db))
      .from(collections)
      .where(cond)
      .orderBy(desc(collections.createdAt), desc(collections.id))
      .limit(f.limit)
      .offset(f.offset)
  ).map(flat);
  return { rows, total };
}

export async function countCollections(db: Db, userId: string, kind: CollectionKind): Promise<number> {
  const { collections } = tables(db);
  return (
    first(
      await db
        .select({ n: count() })
        .from(collections)
        .where(and(eq(collections.userId, userId), eq(collections.kind, kind))),
    )?.n ?? 0
  );
}

export async function updateCollection(db: Db, id: string, patch: Partial<NewCollection>): Promise<void> {
  const { collections } = tables(db);
  await db.update(collections).set(patch).where(eq(collections.id, id));
}

/** Deletes the row; documents, tasks and keys go with it (ON DELETE CASCADE). */
export async function deleteCollectionRow(db: Db, id: string): Promise<void> {
  const { collections } = tables(db);
  await db.delete(collections).where(eq(collections.id, id));
}

/** Every collection's models: configured, of its index, and of a re-index being built. */
export async function listCollectionModels(
  db: Db,
): Promise<Pick<Collection, "embeddingModel" | "indexModel" | "buildingModel">[]> {
  const { collections } = tables(db);
  return await db
    .select({
      embeddingModel: collections.embeddingModel,
      indexModel: collections.indexModel,
      buildingModel: collections.buildingModel,
    })
    .from(collections);
}
