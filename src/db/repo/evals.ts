/** Named queries on evaluation sets and their runs. */
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { collections, evalRuns, evalSets, type EvalRunRow, type EvalSetRow } from "../schema";

export function insertEvalSet(db: Db, row: EvalSetRow): void {
  db.insert(evalSets).values(row).run();
}

/** A pipeline's sets, newest first. */
export function listEvalSets(db: Db, collectionId: string): EvalSetRow[] {
  return db.select().from(evalSets).where(eq(evalSets.collectionId, collectionId)).orderBy(desc(evalSets.id)).all();
}

export function countEvalSets(db: Db, collectionId: string): number {
  return db.select({ n: sql<number>`count(*)` }).from(evalSets).where(eq(evalSets.collectionId, collectionId)).get()!.n;
}

/** One set of a pipeline; undefined when it is missing or belongs to another pipeline. */
export function findEvalSet(db: Db, collectionId: string, id: string): EvalSetRow | undefined {
  return db
    .select()
    .from(evalSets)
    .where(and(eq(evalSets.collectionId, collectionId), eq(evalSets.id, id)))
    .get();
}

/** Deletes a set; its runs go with it (ON DELETE CASCADE). */
export function deleteEvalSet(db: Db, id: string): void {
  db.delete(evalSets).where(eq(evalSets.id, id)).run();
}

/** Stores a run and keeps only the newest `keep` runs of its set. */
export function insertEvalRun(db: Db, row: EvalRunRow, keep: number): void {
  db.transaction((tx) => {
    tx.insert(evalRuns).values(row).run();
    const old = tx
      .select({ id: evalRuns.id })
      .from(evalRuns)
      .where(eq(evalRuns.setId, row.setId))
      .orderBy(desc(evalRuns.id))
      .all()
      .slice(keep)
      .map((r) => r.id);
    if (old.length) tx.delete(evalRuns).where(inArray(evalRuns.id, old)).run();
  });
}

/** A set's runs, newest first. */
export function listEvalRuns(db: Db, setId: string, limit: number): EvalRunRow[] {
  return db.select().from(evalRuns).where(eq(evalRuns.setId, setId)).orderBy(desc(evalRuns.id)).limit(limit).all();
}

/** The newest run of each of these sets. */
export function latestEvalRuns(db: Db, setIds: string[]): Map<string, EvalRunRow> {
  const out = new Map<string, EvalRunRow>();
  for (const id of setIds) {
    const r = listEvalRuns(db, id, 1)[0];
    if (r) out.set(id, r);
  }
  return out;
}

/** Collections whose re-index waits on an evaluation set (to resume their gate after a restart). */
export function listGatedCollectionIds(db: Db): string[] {
  return db
    .select({ id: collections.id })
    .from(collections)
    .where(isNotNull(collections.reindexGate))
    .all()
    .map((r) => r.id);
}
