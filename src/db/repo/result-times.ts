/**
 * When the sources behind a page of search hits were last indexed: what a query's
 * recency boost reads when it names no metadata date (retrieval/boost.ts). Apart from
 * result-sources.ts so that a query without that boost reads nothing more.
 */
import type { Db } from "../client";
import { type PlainSql, selectRows } from "../dialect";

const indexedTimes: PlainSql = {
  sqlite: `SELECT id, indexed_at AS indexedAt FROM documents WHERE id IN (SELECT value FROM json_each($ids))`,
  pg: `SELECT id, indexed_at AS "indexedAt" FROM documents
  WHERE id IN (SELECT value FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value))`,
};

/** Each source's `indexedAt` in milliseconds, by id; a source never indexed (or deleted) has none. */
export async function findIndexedTimes(db: Db, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await selectRows<{ id: string; indexedAt: string | null }>(db, indexedTimes, {
    ids: JSON.stringify(ids),
  });
  const out = new Map<string, number>();
  for (const r of rows) if (r.indexedAt) out.set(r.id, Date.parse(r.indexedAt));
  return out;
}
