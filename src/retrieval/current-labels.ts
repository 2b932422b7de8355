/**
 * What a restricted caller (a key with its own filter, a tenant token: features/keys/access.ts)
 * is shown of a source. Its access is decided on the labels its chunk rows carry (their
 * metadata copy, vectors/meta-index.ts); what a result shows (name, metadata, the text
 * `expand` and MCP `read` give, MCP `list_sources`) comes from SQLite. The two differ
 * while a replacement that changed the labels waits for its new chunks (ingest/write/upsert.ts
 * stores the new version's text and labels at once; the old chunks answer until the new ones
 * are committed), for a moment after a metadata change, and on a replica whose table handle
 * has not yet seen another replica's commit (vectors/connection.ts): a caller the old labels
 * let in would read the new version, which the new labels may keep from it.
 *
 * So a restricted caller is shown a chunk only when the row's labels, as read by the same
 * read that applied the caller's filter (TableSearch.labels, StoredHit.labels), are its
 * source's current labels; and a source (MCP `read`, `list_sources`) only when one of its
 * rows the caller's filter keeps carries them (docs/API.md, Access rules). A later read of
 * the labels could see a newer table version than the one the filter was applied to. The
 * others see everything as ever.
 */
import { ACCESS_KEY } from "../core/metadata";
import type { DocumentRow } from "../db/schema";
import { indexForm } from "../ingest/write/metadata-lookup";
import { sameChunkMetadata } from "../vectors/meta-index";

/** What the check reads of a source row. */
export type LabelledSource = Pick<DocumentRow, "id" | "metadata" | "type" | "externalId">;

/** The source's current labels, as its rows carry them (their index form). */
export function currentLabels(source: LabelledSource): string {
  return indexForm(source);
}

/** Whether a row's metadata copy `labels` (absent: not read) is `current` (currentLabels). */
export function carriesCurrentLabels(labels: string | undefined, current: string): boolean {
  return labels !== undefined && sameChunkMetadata(labels, current);
}

/** A result's or listing's metadata as a restricted caller sees it: without the access list, which names who else may see the source. */
export function withoutAccessList<T extends Record<string, unknown>>(metadata: T): T {
  if (!(ACCESS_KEY in metadata)) return metadata;
  const { [ACCESS_KEY]: _list, ...rest } = metadata;
  return rest as T;
}
