/**
 * Named queries on source_fetches: the refresh schedule of url/api sources, the
 * validators and times of their last fetch, and which crawl a crawled page belongs to.
 */
import { and, asc, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../client";
import { first, type PlainSql, runSql, tables } from "../dialect";
import { once, ph } from "../prepared";
import type { SourceFetch } from "../schema";

export type SourceFetchPatch = Partial<Omit<SourceFetch, "documentId">>;

/** Creates the row of a document, or changes the given fields of it. */
export async function saveSourceFetch(db: Db, documentId: string, patch: SourceFetchPatch): Promise<void> {
  const { sourceFetches } = tables(db);
  if (Object.keys(patch).length === 0) {
    await db.insert(sourceFetches).values({ documentId }).onConflictDoNothing();
    return;
  }
  await db
    .insert(sourceFetches)
    .values({ documentId, ...patch })
    .onConflictDoUpdate({ target: sourceFetches.documentId, set: patch });
}

const LINK_TO_PARENT: PlainSql = {
  sqlite: `INSERT INTO source_fetches (document_id, crawl_source_id) SELECT value, $parent FROM json_each($ids)`,
  pg: `INSERT INTO source_fetches (document_id, crawl_source_id)
  SELECT value, $parent::text FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value)`,
};

/**
 * Links new documents to their parent source (a folder's, a bucket's or a repository's
 * files), one statement for all: as saveSourceFetch(…, { crawlSourceId }) one by one.
 */
export async function linkToParent(db: Db, documentIds: string[], parentId: string): Promise<void> {
  if (documentIds.length > 0) await runSql(db, LINK_TO_PARENT, { ids: JSON.stringify(documentIds), parent: parentId });
}

// Kept prepared: every claim of a linked source reads its own row and its parent's.
const byDocument = (db: Db) => {
  const { sourceFetches } = tables(db);
  return db
    .select()
    .from(sourceFetches)
    .where(eq(sourceFetches.documentId, ph("id")))
    .prepare();
};

/** The fetch state of one document; undefined for text/file sources and url/api sources from before refresh. */
export async function findSourceFetch(db: Db, documentId: string): Promise<SourceFetch | undefined> {
  return first(await once(db, byDocument).execute({ id: documentId }));
}

/** The fetch states of many documents, by id (500 ids per query). */
export async function sourceFetchesOf(db: Db, ids: string[]): Promise<Map<string, SourceFetch>> {
  const { sourceFetches } = tables(db);
  const out = new Map<string, SourceFetch>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .select()
      .from(sourceFetches)
      .where(inArray(sourceFetches.documentId, ids.slice(i, i + 500)));
    for (const r of rows) out.set(r.documentId, r);
  }
  return out;
}

/** Up to `limit` sources whose re-fetch is due at `now`, the longest overdue first. */
export async function dueRefetches(db: Db, now: string, limit: number): Promise<SourceFetch[]> {
  const { sourceFetches } = tables(db);
  return await db
    .select()
    .from(sourceFetches)
    .where(and(isNotNull(sourceFetches.nextCheckAt), lte(sourceFetches.nextCheckAt, now)))
    .orderBy(asc(sourceFetches.nextCheckAt))
    .limit(limit);
}

/** Every scheduled source whose due time is before `now` (after a restart). */
export async function overdueRefetches(db: Db, now: string): Promise<SourceFetch[]> {
  const { sourceFetches } = tables(db);
  return await db
    .select()
    .from(sourceFetches)
    .where(and(isNotNull(sourceFetches.nextCheckAt), lte(sourceFetches.nextCheckAt, now)))
    .orderBy(asc(sourceFetches.nextCheckAt));
}

/** A crawled page as its crawl source's next sync sees it. */
export interface CrawledPage {
  documentId: string;
  url: string;
  contentHash: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** The pages a crawl source holds now. */
export async function crawledPagesOf(db: Db, crawlSourceId: string): Promise<CrawledPage[]> {
  const { documents, sourceFetches } = tables(db);
  return await db
    .select({
      documentId: documents.id,
      url: sql<string>`coalesce(${documents.url}, '')`,
      contentHash: documents.contentHash,
      etag: sourceFetches.etag,
      lastModified: sourceFetches.lastModified,
    })
    .from(sourceFetches)
    .innerJoin(documents, eq(documents.id, sourceFetches.documentId))
    .where(eq(sourceFetches.crawlSourceId, crawlSourceId));
}

/** The sources linked to a parent (a crawl's pages, a folder, bucket or Git source's files), with their metadata. */
export async function linkedSourcesOf(db: Db, parentId: string): Promise<{ id: string; metadata: string }[]> {
  const { documents, sourceFetches } = tables(db);
  return await db
    .select({ id: documents.id, metadata: documents.metadata })
    .from(sourceFetches)
    .innerJoin(documents, eq(documents.id, sourceFetches.documentId))
    .where(eq(sourceFetches.crawlSourceId, parentId));
}

/** Ids of the pages a crawl source holds (to delete them with it). */
export async function crawledPageIds(db: Db, crawlSourceId: string): Promise<string[]> {
  const { sourceFetches } = tables(db);
  return (
    await db
      .select({ id: sourceFetches.documentId })
      .from(sourceFetches)
      .where(eq(sourceFetches.crawlSourceId, crawlSourceId))
  ).map((r) => r.id);
}
