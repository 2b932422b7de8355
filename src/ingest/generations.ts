/**
 * Re-indexing with generations: a re-index builds generation N+1 with the
 * collection's current settings while queries keep reading generation N; the
 * switch happens when the last task of N+1 ends (see finish.ts).
 */
import type { Db } from "../db/client";
import { findCollectionById, updateCollection } from "../db/queries/collections";
import { listDocuments, updateDocument } from "../db/queries/documents";
import { dropQueuedTasksExcept, insertTask } from "../db/queries/tasks";
import type { Collection } from "../db/schema";

export interface ReindexPlan {
  collection: Collection;
  /** Generation tables that are now unwanted and should be dropped. */
  drop: number[];
}

/** Starts (or restarts) a re-index of a collection in one transaction. */
export function planReindex(db: Db, collectionId: string, now = Date.now()): ReindexPlan {
  return db.transaction((tx) => {
    const t = tx as unknown as Db;
    const col = findCollectionById(t, collectionId)!;
    const previousBuild = col.buildingGeneration;
    const building = Math.max(col.activeGeneration, previousBuild ?? 0) + 1;
    const stamp = new Date(now).toISOString();
    const docs = listDocuments(t, collectionId).filter((d) => d.status !== "awaiting_upload");
    const drop = previousBuild !== null ? [previousBuild] : [];
    if (docs.length === 0) {
      // Nothing to rebuild: the new settings simply become the index's.
      updateCollection(t, collectionId, {
        activeGeneration: building,
        indexModel: col.embeddingModel,
        embeddingDimensions: null,
        buildingGeneration: null,
        buildingModel: null,
        updatedAt: stamp,
      });
      drop.push(col.activeGeneration);
    } else {
      updateCollection(t, collectionId, {
        buildingGeneration: building,
        buildingModel: col.embeddingModel,
        updatedAt: stamp,
      });
      dropQueuedTasksExcept(t, collectionId, building);
      for (const d of docs) {
        insertTask(t, { documentId: d.id, collectionId, generation: building, now });
        updateDocument(t, d.id, { status: "queued", error: null, progressDone: 0, progressTotal: 0, updatedAt: stamp });
      }
    }
    return { collection: findCollectionById(t, collectionId)!, drop };
  });
}
