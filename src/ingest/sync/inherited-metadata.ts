/**
 * Sources linked to a parent (a crawl's pages; a folder, bucket or Git source's files)
 * start with its metadata (and a synced file with where it is: folder-sync.ts). When the
 * parent's metadata changes, the keys a linked source still holds as the parent had them
 * follow the parent at once, in the transaction that changes it: a key it holds with a
 * value of its own (set by a PATCH of it, or a file's `path`) stays, a key the parent
 * dropped goes. So narrowing a crawl's `_access` narrows every page it took, not only
 * those a later crawl adds (docs/API.md, Refresh and crawl).
 *
 * The linked sources' chunk rows get the new metadata after the commit, in the background
 * (a folder may hold 100,000 files): until then a restricted caller is not shown them
 * (their rows' labels are not the current ones: retrieval/current-labels.ts), and other
 * callers' filters match their former metadata.
 */
import type { Db } from "../../db/client";
import { updateDocument } from "../../db/repo/documents";
import { linkedSourcesOf } from "../../db/repo/source-fetches";
import { type Metadata, parseStoredMetadata } from "../../core/metadata";

/** Documents whose chunk rows one rewrite takes (as a folder sync's retag: folder-sync.ts). */
const REWRITE_BATCH = 500;

/** A linked source's metadata once its parent's goes from `before` to `after`. */
export function followParent(child: Metadata, before: Metadata, after: Metadata): Metadata {
  const own: Metadata = {};
  for (const [key, value] of Object.entries(child)) {
    const inherited = Object.hasOwn(before, key) && JSON.stringify(before[key]) === JSON.stringify(value);
    if (!inherited) own[key] = value;
  }
  return { ...after, ...own };
}

/**
 * In the transaction that changes the parent's metadata (stored JSON, `before` → `after`):
 * the linked sources whose metadata follows it get theirs; their ids.
 */
export async function retagLinked(t: Db, parentId: string, before: string, after: string): Promise<string[]> {
  if (before === after) return [];
  const [from, to] = [parseStoredMetadata(before), parseStoredMetadata(after)];
  const changed: string[] = [];
  const updatedAt = new Date().toISOString();
  for (const linked of await linkedSourcesOf(t, parentId)) {
    const metadata = JSON.stringify(followParent(parseStoredMetadata(linked.metadata), from, to));
    if (metadata === linked.metadata) continue;
    await updateDocument(t, linked.id, { metadata, updatedAt });
    changed.push(linked.id);
  }
  return changed;
}

/** What the background rewrite needs of the vector store. */
export interface ChunkMetadata {
  rewriteMetadata(collectionId: string, documentIds: string[]): Promise<void>;
}

/**
 * Brings the chunk rows of `ids` to their documents' metadata, REWRITE_BATCH documents a
 * rewrite, in the background; a failure is logged (the rows keep their former copy until
 * the document is written again).
 */
export function rewriteLinkedChunks(
  store: ChunkMetadata,
  collectionId: string,
  ids: string[],
  log: (msg: string, fields?: object) => void,
): Promise<void> {
  if (ids.length === 0) return Promise.resolve();
  const run = async () => {
    for (let i = 0; i < ids.length; i += REWRITE_BATCH)
      await store.rewriteMetadata(collectionId, ids.slice(i, i + REWRITE_BATCH));
  };
  return run().catch((err) =>
    log("could not rewrite linked sources' chunk metadata", { collectionId, sources: ids.length, error: String(err) }),
  );
}
