/**
 * The sources behind a page of search hits: one statement, prepared once, for any number
 * of ids (a JSON array through json_each), reading only the columns a result shows.
 * Built by drizzle, an `IN (…)` of the hits' ids was new SQL text for each length,
 * rendered afresh per query, and read every column of the row: 14% of the main
 * thread's time under 32 vector clients (bench/query-concurrency.ts, 20,000 chunks).
 */
import type { Db } from "../client";
import { type PlainSql, selectRows } from "../dialect";
import type { DocumentRow } from "../schema";

/** What a search result says about its source (docs/API.md, Query: result metadata). */
export type ResultSource = Pick<
  DocumentRow,
  | "id"
  | "collectionId"
  | "type"
  | "name"
  | "url"
  | "fileName"
  | "externalId"
  | "metadata"
  | "status"
  | "updatedAt"
  | "indexedAt"
>;

// SQLite's text, exported for its query plan test.
// IN (subquery), not a join: joined, SQLite walked every document of the collection for
// each query (8 ms at 2,000 documents) instead of looking the ids up (about 50 µs).
export const SOURCES_OF_HITS = `SELECT id, collection_id AS collectionId, type, name, url, file_name AS fileName,
    external_id AS externalId, metadata, status, updated_at AS updatedAt, indexed_at AS indexedAt
  FROM documents WHERE id IN (SELECT value FROM json_each($ids))`;

/** SOURCES_OF_HITS (SQLite's text, which test/result-sources.test.ts plans) and PostgreSQL's. */
const sourcesOfHits: PlainSql = {
  sqlite: SOURCES_OF_HITS,
  pg: `SELECT id, collection_id AS "collectionId", type, name, url, file_name AS "fileName",
    external_id AS "externalId", metadata, status, updated_at AS "updatedAt", indexed_at AS "indexedAt"
  FROM documents WHERE id IN (SELECT value FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value))`,
};

/** The documents with these ids; an id of a deleted document has no row. */
export async function findResultSources(db: Db, ids: string[]): Promise<ResultSource[]> {
  if (ids.length === 0) return [];
  return selectRows<ResultSource>(db, sourcesOfHits, { ids: JSON.stringify(ids) });
}

const chunksOfSources: PlainSql = {
  sqlite: "SELECT coalesce(sum(chunk_count), 0) AS n FROM documents WHERE id IN (SELECT value FROM json_each($ids))",
  pg: `SELECT coalesce(sum(chunk_count), 0)::int AS n FROM documents
  WHERE id IN (SELECT value FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value))`,
};

/** The chunks the documents with these ids hold, as their rows count them. */
export async function countChunksOf(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await selectRows<{ n: number }>(db, chunksOfSources, { ids: JSON.stringify(ids) });
  return Number(row?.n ?? 0);
}
