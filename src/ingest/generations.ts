/**
 * Index generations, and the one module that reads or writes them. A collection's
 * chunks live in one vector table per generation. Queries read the active generation,
 * embedded with the model it was built with (`indexModel`, its vector size in
 * `embeddingDimensions`). A re-index builds generation N+1 with the current settings
 * and model (`buildingGeneration`, `buildingModel`) while N keeps answering; when the
 * last task of N+1 ends, N+1 becomes active and N is dropped, unless every task of
 * N+1 failed: then N+1 is abandoned and N keeps answering. A re-index started with an
 * evaluation set (`reindexGate`) does not switch when built: it waits for the set to
 * be run on both generations (features/evals/gate.ts), which then switches to N+1
 * (completeReindex) or keeps N and drops N+1 (keepServing).
 *
 * Those columns (and the languages beside the models) are read and written here only; callers ask by name (which
 * model a generation uses, which generation a query reads, whether a generation is
 * live) and are told which generation tables to drop. Changing the rule means
 * changing this file.
 */
import type { Db } from "../db/client";
import type { Store } from "../db/store";
import { findCollectionById, listCollectionModels, updateCollection } from "../db/repo/collections";
import { markRebuildFailed, updateDocument, zeroFailedChunkCounts } from "../db/repo/documents";
import { hasDocuments, listDocumentStates } from "../db/repo/document-states";
import { dropQueuedTasksExcept, insertTask, pendingTaskCount, tasksOfGeneration } from "../db/repo/tasks";
import type { Collection, NewCollection, Task } from "../db/schema";
import { recordReindexEnd, recordSourceEvent } from "./events";

/** The generation columns of a collection row (and the configured model they default to). */
type Generations = Pick<
  Collection,
  | "activeGeneration"
  | "buildingGeneration"
  | "indexModel"
  | "buildingModel"
  | "embeddingModel"
  | "reindexGate"
  | "language"
  | "indexLanguage"
  | "buildingLanguage"
>;

const iso = (ms: number) => new Date(ms).toISOString();

/** The generation fields of a new collection: generation 1 (the column default), built with `model` and `language`. */
export function firstGeneration(model: string, language: string): Pick<NewCollection, "indexModel" | "indexLanguage"> {
  return { indexModel: model, indexLanguage: language };
}

/** The embedding model of one generation: the re-index's for the one being built, the index's otherwise. */
export function modelOf(col: Generations, generation: number): string {
  const model = generation === col.buildingGeneration ? col.buildingModel : col.indexModel;
  return model ?? col.embeddingModel;
}

/** The language setting one generation's text is analysed with (text/analyze.ts; `legacy`: not at all). */
export function languageOf(col: Generations, generation: number): string {
  const language = generation === col.buildingGeneration ? col.buildingLanguage : col.indexLanguage;
  return language ?? col.language;
}

/** What a query reads: the active generation, the model to embed the query with, the language to analyse it in. */
export function queryTarget(col: Generations): { generation: number; model: string; language: string } {
  const generation = col.activeGeneration;
  return { generation, model: modelOf(col, generation), language: languageOf(col, generation) };
}

/** The generation new tasks write into: the one being built, if any, else the active one. */
export function targetGeneration(col: Generations): number {
  return col.buildingGeneration ?? col.activeGeneration;
}

/** True while rows may be written to `generation` (active or being built); any other is to be dropped. */
export function isLive(col: Generations, generation: number): boolean {
  return generation === col.activeGeneration || generation === col.buildingGeneration;
}

/** True for the generation a re-index is building. */
export function isBuilding(col: Generations, generation: number): boolean {
  return generation === col.buildingGeneration;
}

/** True when `generation` answers queries and no re-index runs: its rows must match SQLite's counts. */
export function isSettled(col: Generations, generation: number): boolean {
  return col.buildingGeneration === null && generation === col.activeGeneration;
}

/** The vector size of the active index; null until its first document is embedded. */
export function indexDimensions(col: Pick<Collection, "embeddingDimensions">): number | null {
  return col.embeddingDimensions;
}

/** The models that queries and ingestion use now: each index's model and any being built. */
export async function modelsInUse(db: Db): Promise<string[]> {
  const used = (await listCollectionModels(db)).flatMap((c) => [
    c.indexModel ?? c.embeddingModel,
    ...(c.buildingModel !== null ? [c.buildingModel] : []),
  ]);
  return [...new Set(used)];
}

/**
 * After the configured model or language changed: with no document there is no index to
 * keep coherent, so the (empty) active generation takes the new settings at once.
 */
export async function followSettingsIfEmpty(
  db: Db,
  collectionId: string,
  settings: { model: string; language: string },
): Promise<void> {
  if (!(await hasDocuments(db, collectionId)))
    await updateCollection(db, collectionId, { indexModel: settings.model, indexLanguage: settings.language });
}

/**
 * The first successful task of the active generation tells the model's vector size.
 * `known`: the collection as this transaction read it, if the caller has it.
 */
export async function noteDimensions(db: Db, task: Task, dimensions: number, known?: Collection): Promise<void> {
  const col = known ?? (await findCollectionById(db, task.collectionId));
  if (col && col.activeGeneration === task.generation && col.embeddingDimensions === null) {
    await updateCollection(db, col.id, { embeddingDimensions: dimensions });
  }
}

/**
 * Starts (or restarts) a re-index in one transaction: every document gets a task in
 * a new generation built with the current model. Returns the generations to drop
 * (a re-index it supersedes; the old index itself when there is nothing to rebuild);
 * none when the collection is gone.
 */
export function startReindex(
  store: Store,
  collectionId: string,
  now = Date.now(),
  gate: string | null = null,
): Promise<number[]> {
  return store.atomically(async (t) => {
    const col = await findCollectionById(t, collectionId);
    if (!col) return [];
    const previousBuild = col.buildingGeneration;
    const building = Math.max(col.activeGeneration, previousBuild ?? 0) + 1;
    const stamp = iso(now);
    const docs = (await listDocumentStates(t, collectionId)).filter((d) => d.status !== "awaiting_upload");
    const drop = previousBuild !== null ? [previousBuild] : [];
    if (docs.length === 0) {
      // Nothing to rebuild: the new settings simply become the index's.
      await updateCollection(t, collectionId, {
        activeGeneration: building,
        indexModel: col.embeddingModel,
        indexLanguage: col.language,
        embeddingDimensions: null,
        buildingGeneration: null,
        buildingModel: null,
        buildingLanguage: null,
        reindexGate: null,
        updatedAt: stamp,
      });
      drop.push(col.activeGeneration);
      await recordReindexEnd(t, collectionId, "completed", now);
      return drop;
    }
    await updateCollection(t, collectionId, {
      buildingGeneration: building,
      buildingModel: col.embeddingModel,
      buildingLanguage: col.language,
      reindexGate: gate,
      updatedAt: stamp,
    });
    await dropQueuedTasksExcept(t, collectionId, building);
    for (const d of docs) {
      await insertTask(t, { documentId: d.id, collectionId, generation: building, now });
      await updateDocument(t, d.id, {
        status: "queued",
        error: null,
        progressDone: 0,
        progressTotal: 0,
        updatedAt: stamp,
      });
      await recordSourceEvent(t, "source.queued", d.id, {}, now);
    }
    return drop;
  });
}

/** What the end of a task (or a delete) means for a re-index: a generation to drop, or a build awaiting its gate. */
export interface ReindexEnd {
  drop: number | null;
  /** The build is complete but waits for its evaluation set before it may switch. */
  gated: boolean;
}

/** True while a gated re-index is built and waits for its evaluation (after a restart too). */
export async function awaitsGate(db: Db, col: Collection): Promise<boolean> {
  return (
    col.reindexGate !== null &&
    col.buildingGeneration !== null &&
    (await pendingTaskCount(db, col.id, col.buildingGeneration)) === 0
  );
}

/**
 * Ends a re-index once nothing of it is pending (after its last task, or the delete of
 * its last waiting document): completes it (the new generation becomes active), or
 * abandons it when every task failed (a model never pulled, say), so the previous
 * index keeps answering and each failed document says so. A gated re-index that built
 * is left for its evaluation (`gated`). `lastDimensions` is the vector size the last
 * task learned, if it succeeded.
 */
export async function endReindexIfBuilt(
  db: Db,
  collectionId: string,
  now: number,
  lastDimensions: number | null = null,
  /** The collection as this transaction last read it, if the caller has it (one query less per task). */
  known?: Collection,
): Promise<ReindexEnd> {
  const col = known ?? (await findCollectionById(db, collectionId));
  if (!col || col.buildingGeneration === null) return { drop: null, gated: false };
  if ((await pendingTaskCount(db, collectionId, col.buildingGeneration)) > 0) return { drop: null, gated: false };
  const built = await tasksOfGeneration(db, collectionId, col.buildingGeneration);
  if (built.failed > 0 && built.succeeded === 0) {
    await updateCollection(db, collectionId, {
      buildingGeneration: null,
      buildingModel: null,
      buildingLanguage: null,
      reindexGate: null,
      updatedAt: iso(now),
    });
    await markRebuildFailed(db, collectionId, iso(now));
    await recordReindexEnd(db, collectionId, "abandoned", now);
    return { drop: col.buildingGeneration, gated: false };
  }
  if (col.reindexGate !== null) {
    // The size the build learned is kept until the switch, which is decided later.
    if (lastDimensions !== null) pendingDimensions.set(collectionId, lastDimensions);
    return { drop: null, gated: true };
  }
  return { drop: await completeReindex(db, col, now, null, lastDimensions), gated: false };
}

/** Vector sizes learned by gated builds, until their switch (a restart re-learns it from the next query's task). */
const pendingDimensions = new Map<string, number>();

/**
 * Makes the built generation active and returns the old one to drop. Call it in a
 * transaction, with the collection as read in it.
 */
export async function completeReindex(
  db: Db,
  col: Collection,
  now: number,
  evaluation: Record<string, unknown> | null = null,
  lastDimensions: number | null = null,
): Promise<number> {
  const learned = lastDimensions ?? pendingDimensions.get(col.id) ?? null;
  pendingDimensions.delete(col.id);
  // Documents whose rebuild failed have no chunks in the new generation.
  await zeroFailedChunkCounts(db, col.id);
  await updateCollection(db, col.id, {
    activeGeneration: col.buildingGeneration!,
    indexModel: col.buildingModel,
    indexLanguage: col.buildingLanguage,
    embeddingDimensions: learned ?? (col.buildingModel === col.indexModel ? col.embeddingDimensions : null),
    buildingGeneration: null,
    buildingModel: null,
    buildingLanguage: null,
    reindexGate: null,
    updatedAt: iso(now),
  });
  await recordReindexEnd(db, col.id, "completed", now, evaluation);
  return col.activeGeneration;
}

/**
 * A gated re-index that did worse: the serving generation stays, the built one is
 * to be dropped (returned). Chunk counts are then put back by the caller from the
 * serving generation's rows. `evaluation` (the comparison) goes into the reindex.completed event.
 */
export async function keepServing(
  db: Db,
  col: Collection,
  now: number,
  evaluation: Record<string, unknown>,
): Promise<number> {
  pendingDimensions.delete(col.id);
  await updateCollection(db, col.id, {
    buildingGeneration: null,
    buildingModel: null,
    buildingLanguage: null,
    reindexGate: null,
    updatedAt: iso(now),
  });
  await recordReindexEnd(db, col.id, "kept", now, evaluation);
  return col.buildingGeneration!;
}
