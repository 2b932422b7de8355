/** Named queries on evaluation sets and their runs. */
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { collections, evalRuns, evalSets, type EvalRunRow, type EvalSetRow } from "../schema";

export async function insertEvalSet(db: Db, row: EvalSetRow): Promise<void> {
  db.insert(evalSets).values(row).run();
}

/** A pipeline's sets, newest first. */
export async function listEvalSets(db: Db, collectionId: string): Promise<EvalSetRow[]> {
  return db.select().from(evalSets).where(eq(evalSets.collectionId, collectionId)).orderBy(desc(evalSets.id)).all();
}

export async function countEvalSets(db: Db, collectionId: string): Promise<number> {
  return db.select({ n: sql<number>`count(*)` }).from(evalSets).where(eq(evalSets.collectionId, collectionId)).get()!.n;
}

/** One set of a pipeline; undefined when it is missing or belongs to another pipeline. */
export async function findEvalSet(db: Db, collectionId: string, id: string): Promise<EvalSetRow | undefined> {
  return db
    .select()
    .from(evalSets)
    .where(and(eq(evalSets.collectionId, collectionId), eq(evalSets.id, id)))
    .get();
}

/** Deletes a set; its runs go with it (ON DELETE CASCADE). */
export async function deleteEvalSet(db: Db, id: string): Promise<void> {
  db.delete(evalSets).where(eq(evalSets.id, id)).run();
}

/** Stores a run and keeps only the newest `keep` runs of its set. */
export async function insertEvalRun(db: Db, row: EvalRunRow, keep: number): Promise<void> {
  db.insert(evalRuns).values(row).run();
  const old = db
    .select({ id: evalRuns.id })
    .from(evalRuns)
    .where(eq(evalRuns.setId, row.setId))
    .orderBy(desc(evalRuns.id))
    .all()
    .slice(keep)
    .map((r) => r.id);
  if (old.length) db.delete(evalRuns).where(inArray(evalRuns.id, old)).run();
}

/** A set's runs, newest first. */
export async function listEvalRuns(db: Db, setId: string, limit: number): Promise<EvalRunRow[]> {
  return db.select().from(evalRuns).where(eq(evalRuns.setId, setId)).orderBy(desc(evalRuns.id)).limit(limit).all();
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
  return db
    .select({ id: collections.id })
    .from(collections)
    .where(isNotNull(collections.reindexGate))
    .all()
    .map((r) => r.id);
}
