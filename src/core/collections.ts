/**
 * The engine's collections: what pipelines and knowledge bases share.
 * `deleteCollection` is the one cascade: rows (documents, tasks, keys via
 * ON DELETE CASCADE), then whatever hangs below on disk and in the vector store.
 * Later parts register their own clean-up with `onCollectionDeleted`.
 */
import type { Db } from "../db/client";
import { deleteCollectionRow } from "../db/repo/collections";

type Cleanup = (collectionId: string) => void | Promise<void>;

export class Collections {
  private readonly cleanups: Cleanup[] = [];

  constructor(private readonly db: Db) {}

  /** Registers work to do after a collection's rows are gone (files, vector tables, caches). */
  onCollectionDeleted(fn: Cleanup): void {
    this.cleanups.push(fn);
  }

  /** Deletes a collection and everything below it. */
  async deleteCollection(id: string): Promise<void> {
    deleteCollectionRow(this.db, id);
    for (const fn of this.cleanups) await fn(id);
  }
}
