/**
 * The engine's collections: what pipelines and knowledge bases share.
 * `deleteCollection` is the one cascade: rows (documents, tasks, keys via
 * ON DELETE CASCADE), then whatever hangs below on disk and in the vector store.
 * Later parts register their own clean-up with `onCollectionDeleted`.
 */
import { deleteCollectionRow, findCollectionById } from "../db/repo/collections";
import type { Store } from "../db/store";

type Cleanup = (collectionId: string) => void | Promise<void>;

export class Collections {
  private readonly cleanups: Cleanup[] = [];

  constructor(private readonly db: Store) {}

  /** Registers work to do after a collection's rows are gone (files, vector tables, caches). */
  onCollectionDeleted(fn: Cleanup): void {
    this.cleanups.push(fn);
  }

  /**
   * Deletes a collection and everything below it. False when it was gone already
   * (deleted by a request beside this one, which runs the clean-up).
   */
  async deleteCollection(id: string): Promise<boolean> {
    const found = await this.db.atomically(async (tx) => {
      if (!(await findCollectionById(tx, id))) return false;
      await deleteCollectionRow(tx, id);
      return true;
    });
    if (!found) return false;
    for (const fn of this.cleanups) await fn(id);
    return true;
  }
}
