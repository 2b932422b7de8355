/**
 * Sources linked to a parent (a crawl's pages; a folder, bucket or Git source's files)
 * start with its metadata (and a synced file with where it is: folder-sync.ts, git-sync.ts).
 * When the parent's metadata changes, the keys a linked source still holds as the parent
 * had them follow the parent, in the transaction that changes it (retagLinked): a key it
 * holds with a value of its own (set by a PATCH of it) stays, a key the parent dropped
 * goes, and a synced file's location keys (FILE_KEYS) are always its own. So narrowing a
 * crawl's `_access` narrows every page it took (docs/API.md, Refresh and crawl).
 *
 * A crawl or sync that read the parent before such a change writes its pages and files
 * later: each of its writes brings them to the parent as it is in the write's own
 * transaction (parentNow), so a page added mid-change still gets the new metadata.
 *
 * The linked sources' chunk rows get the new metadata after the commit, in the background
 * (a folder may hold 100,000 files): until then a restricted caller is not shown them
 * (their rows' labels are not the current ones: retrieval/current-labels.ts), and other
 * callers' filters match their former metadata.
 */
import type { Db } from "../../db/client";
import { findDocumentById, setMetadataOf } from "../../db/repo/documents";
import { linkedSourcesOf } from "../../db/repo/source-fetches";
import { type Metadata, parseStoredMetadata } from "../../core/metadata";

/** Documents whose chunk rows one rewrite takes (as a folder sync's retag: folder-sync.ts). */
const REWRITE_BATCH = 500;
/** The keys a synced file holds of its own, whatever its parent holds (folder-sync.ts fileMetadata, git-sync.ts). */
const FILE_KEYS: ReadonlySet<string> = new Set([
  "path",
  "extension",
  "modifiedAt",
  "size",
  "etag",
  "commit",
  "authorDate",
]);
const NO_KEYS: ReadonlySet<string> = new Set();

/** The keys a source linked to a parent of `parentType` holds of its own: a synced file's location; none of a crawled page. */
const ownKeysUnder = (parentType: string): ReadonlySet<string> => (parentType === "url" ? NO_KEYS : FILE_KEYS);

/** A linked source's metadata once its parent's goes from `before` to `after`; the keys in `own` stay its own. */
export function followParent(
  child: Metadata,
  before: Metadata,
  after: Metadata,
  own: ReadonlySet<string> = NO_KEYS,
): Metadata {
  const kept: Metadata = {};
  for (const [key, value] of Object.entries(child)) {
    const inherited =
      !own.has(key) && Object.hasOwn(before, key) && JSON.stringify(before[key]) === JSON.stringify(value);
    if (!inherited) kept[key] = value;
  }
  const given = Object.fromEntries(Object.entries(after).filter(([key]) => !own.has(key)));
  return { ...given, ...kept };
}

/**
 * In the transaction that changes the parent's metadata (stored JSON, `before` → `after`):
 * the linked sources whose metadata follows it get theirs, in one statement; their ids.
 */
export async function retagLinked(
  t: Db,
  parent: { id: string; type: string },
  before: string,
  after: string,
): Promise<string[]> {
  if (before === after) return [];
  const follow = following(parent.type, before, after);
  const changed: { id: string; metadata: string }[] = [];
  for (const linked of await linkedSourcesOf(t, parent.id)) {
    const metadata = follow(linked.metadata);
    if (metadata !== linked.metadata) changed.push({ id: linked.id, metadata });
  }
  await setMetadataOf(t, changed, new Date().toISOString());
  return changed.map((c) => c.id);
}

/**
 * Inside a transaction that writes linked sources of `parentId` whose metadata was made from
 * the parent's as read earlier (`seen`, its stored JSON): how to bring such metadata to the
 * parent's as it is now (stored JSON in, stored JSON out); identity when it has not changed.
 */
export async function parentNow(t: Db, parentId: string, seen: string): Promise<(stored: string) => string> {
  const parent = await findDocumentById(t, parentId);
  if (!parent || parent.metadata === seen) return (stored) => stored;
  return following(parent.type, seen, parent.metadata);
}

/** In the transaction that creates linked sources `rows` from the parent's metadata as read earlier (`seen`): parentNow for each. */
export async function bringToParent(
  t: Db,
  parentId: string,
  seen: string,
  rows: { id: string; metadata: string }[],
): Promise<void> {
  const follow = await parentNow(t, parentId, seen);
  const changed = rows
    .map((r) => ({ id: r.id, metadata: follow(r.metadata) }))
    .filter((r, i) => r.metadata !== rows[i]!.metadata);
  await setMetadataOf(t, changed, new Date().toISOString());
}

function following(parentType: string, before: string, after: string): (stored: string) => string {
  const [from, to, own] = [parseStoredMetadata(before), parseStoredMetadata(after), ownKeysUnder(parentType)];
  return (stored) => {
    const next = JSON.stringify(followParent(parseStoredMetadata(stored), from, to, own));
    // Unchanged content keeps its stored text (its key order), so callers can compare.
    return next === JSON.stringify(parseStoredMetadata(stored)) ? stored : next;
  };
}

/** What the background rewrite needs of the vector store. */
export interface ChunkMetadata {
  rewriteMetadata(collectionId: string, documentIds: string[]): Promise<void>;
}

/**
 * Brings the chunk rows of `ids` to their documents' metadata, REWRITE_BATCH documents a
 * rewrite, in the background; a failure is logged (the rows keep their former copy until
 * the document is written again, and restricted callers are not shown it meanwhile).
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
