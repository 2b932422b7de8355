/** Named queries on evaluation sets and their runs. */
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { first, tables } from "../dialect";
import type { EvalRunRow, EvalSetRow } from "../schema";

export async function insertEvalSet(db: Db, row: EvalSetRow): Promise<void> {
  const { evalSets } = tables(db);
  await db.insert(evalSets).values(row);
}

/** A pipeline's sets, newest first. */
export async function listEvalSets(db: Db, collectionId: string): Promise<EvalSetRow[]> {
  const { evalSets } = tables(db);
  return await db.select().from(evalSets).where(eq(evalSets.collectionId, collectionId)).orderBy(desc(evalSets.id));
}

export async function countEvalSets(db: Db, collectionId: string): Promise<number> {
  const { evalSets } = tables(db);
  // count(*) is a bigint on PostgreSQL, read as a string: mapped to a number on both.
  const rows = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(evalSets)
    .where(eq(evalSets.collectionId, collectionId));
  return first(rows)!.n;
}

/** One set of a pipeline; undefined when it is missing or belongs to another pipeline. */
export async function findEvalSet(db: Db, collectionId: string, id: string): Promise<EvalSetRow | undefined> {
  const { evalSets } = tables(db);
  return first(
    await db
      .select()
      .from(evalSets)
      .where(and(eq(evalSets.collectionId, collectionId), eq(evalSets.id, id))),
  );
}

/** Deletes a set; its runs go with it (ON DELETE CASCADE). */
export async function deleteEvalSet(db: Db, id: string): Promise<void> {
  const { evalSets } = tables(db);
  await db.delete(evalSets).where(eq(evalSets.id, id));
}

/** Stores a run and keeps only the newest `keep` runs of its set. */
export async function insertEvalRun(db: Db, row: EvalRunRow, keep: number): Promise<void> {
  const { evalRuns } = tables(db);
  await db.insert(evalRuns).values(row);
  const old = (
    await db.select({ id: evalRuns.id }).from(evalRuns).where(eq(evalRuns.setId, row.setId)).orderBy(desc(evalRuns.id))
  )
    .slice(keep)
    .map((r) => r.id);
  if (old.length) await db.delete(evalRuns).where(inArray(evalRuns.id, old));
}

/** A set's runs, newest first. */
export async function listEvalRuns(db: Db, setId: string, limit: number): Promise<EvalRunRow[]> {
  const { evalRuns } = tables(db);
  return await db.select().from(evalRuns).where(eq(evalRuns.setId, setId)).orderBy(desc(evalRuns.id)).limit(limit);
}

/** The newest run of each of these sets. */
export async function latestEvalRuns(db: Db, setIds: string[]): Promise<Map<string, EvalRunRow>> {
  const out = new Map<string, EvalRunRow>();
  for (const id of setIds) {
    const r = (await listEvalRuns(db, id, 1))[0];
    if (r) out.set(id, r);
  }
  return out;
}

/** Collections whose re-index waits on an evaluation set (to resume their gate after a restart). */
export async function listGatedCollectionIds(db: Db): Promise<string[]> {
  const { collections } = tables(db);
  return (await db.select({ id: collections.id }).from(collections).where(isNotNull(collections.reindexGate))).map(
    (r) => r.id,
  );
}
