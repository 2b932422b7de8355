/**
 * What a restricted caller (a key with its own filter, a tenant token: features/keys/access.ts)
 * is shown of a source. Its access is decided on the labels its chunk rows carry (their
 * metadata copy, vectors/meta-index.ts); what a result shows (name, metadata, the text
 * `expand` and MCP `read` give, MCP `list_sources`) comes from SQLite. The two differ
 * while a replacement that changed the labels waits for its new chunks (ingest/write/upsert.ts
 * stores the new version's text and labels at once; the old chunks answer until the new ones
 * are committed), and for a moment after a metadata change: a caller the old labels let in
 * would read the new version, which the new labels may keep from it. So a restricted caller
 * is shown a source only while every copy its rows carry is its current labels (docs/API.md,
 * Access rules); the others see it as ever.
 *
 * Only a source that may have changed since it was indexed is looked at (`unsettled`): not
 * `ready`, written since it was last indexed, or indexed moments ago (another replica's
 * table handle sees a commit within a second, vectors/connection.ts, while the source's row
 * in the shared database says at once that it is indexed). A settled one costs nothing, nor
 * does one found carrying its labels since its row last changed (a metadata change leaves
 * `updatedAt` past `indexedAt` for good): this process's view of its rows only moves on.
 */
import { ACCESS_KEY } from "../core/metadata";
import type { DocumentRow } from "../db/schema";
import { indexForm } from "../ingest/write/metadata-lookup";
import { RecentCache } from "../tools/recent-cache";
import { sameChunkMetadata } from "../vectors/meta-index";
import type { VectorStore } from "../vectors/store";

/** What the check reads of a source row. */
export type LabelledSource = Pick<
  DocumentRow,
  "id" | "status" | "updatedAt" | "indexedAt" | "metadata" | "type" | "externalId"
>;

/** How long after its indexing a source is still looked at: a replica's lag, with room for clocks that differ. */
export const SETTLING_MS = 5_000;

/** Whether the source may carry other labels in SQLite than on its chunk rows (as this process reads them). */
export function unsettled(d: LabelledSource, now = Date.now()): boolean {
  return d.status !== "ready" || d.indexedAt === null || d.updatedAt > d.indexedAt || withinSettling(d, now);
}

/**
 * The ids of `sources` whose chunk rows in the collection's `generation` carry a copy
 * other than their current labels: a restricted caller is not shown them.
 */
export async function switchingSources(
  store: Pick<VectorStore, "labelCopies">,
  collection: { id: string; generation: number },
  sources: LabelledSource[],
): Promise<Set<string>> {
  const now = Date.now();
  const key = (d: LabelledSource) => `${collection.id}/${collection.generation}/${d.id}`;
  const looked = sources.filter((d) => unsettled(d, now) && agreeing.get(key(d)) !== rowOf(d));
  if (looked.length === 0) return new Set();
  const ids = looked.map((d) => d.id);
  const copies = await store.labelCopies(collection.id, collection.generation, ids);
  const out = new Set<string>();
  for (const d of looked) {
    const current = indexForm(d);
    const found = [...(copies.get(d.id) ?? [])];
    if (found.some((copy) => !sameChunkMetadata(copy, current))) out.add(d.id);
    else if (found.length > 0 && d.status === "ready" && !withinSettling(d, now)) agreeing.set(key(d), rowOf(d));
  }
  return out;
}

/** Sources whose rows were found carrying their labels, with the source row as it was then. */
const agreeing = new RecentCache<string, string>(10_000);

const rowOf = (d: LabelledSource) => `${d.status}|${d.updatedAt}|${d.indexedAt}|${d.metadata}`;

const withinSettling = (d: LabelledSource, now: number) =>
  d.indexedAt === null || now - Date.parse(d.indexedAt) < SETTLING_MS;

/** A result's or listing's metadata as a restricted caller sees it: without the access list, which names who else may see the source. */
export function withoutAccessList<T extends Record<string, unknown>>(metadata: T): T {
  if (!(ACCESS_KEY in metadata)) return metadata;
  const { [ACCESS_KEY]: _list, ...rest } = metadata;
  return rest as T;
}
