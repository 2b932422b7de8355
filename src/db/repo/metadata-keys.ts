/**
 * Named queries over the metadata of a collection's sources (docs/API.md, MCP,
 * `list_metadata`): which keys exist, of which types, on how many sources, and
 * their most common string values. Both read `documents.metadata` with SQLite's
 * json_each, over the rows of one collection only (the collection index).
 */
import type { Db } from "../client";
import { once } from "../prepared";

/** One (key, JSON type) pair: json_each's types are integer, real, text, true, false and array. */
export interface MetadataKeyRow {
  key: string;
  type: string;
  /** Sources holding the key with this type. */
  sources: number;
  /** Smallest and largest value, for numbers; null otherwise. */
  min: number | null;
  max: number | null;
}

/** One of a key's most common string values (an array's items count one by one). */
export interface MetadataValueRow {
  key: string;
  value: string;
  /** Sources holding the value. */
  sources: number;
  /** Distinct string values of the key. */
  distinct: number;
}

const keysStatement = (db: Db) =>
  db.$client.prepare<MetadataKeyRow, { collectionId: string }>(
    `SELECT j.key AS key, j.type AS type, count(*) AS sources,
            CASE WHEN j.type IN ('integer', 'real') THEN min(j.value) END AS min,
            CASE WHEN j.type IN ('integer', 'real') THEN max(j.value) END AS max
       FROM documents d, json_each(d.metadata) j
      WHERE d.collection_id = $collectionId
      GROUP BY j.key, j.type`,
  );

// Ranked in SQL so a key with thousands of distinct values (titles, ids) sends back only its top rows.
const valuesStatement = (db: Db) =>
  db.$client.prepare<MetadataValueRow, { collectionId: string; perKey: number }>(
    `WITH entries AS (
       SELECT j.key AS key, j.type AS type, j.value AS value
         FROM documents d, json_each(d.metadata) j
        WHERE d.collection_id = $collectionId AND j.type IN ('text', 'array')
     ),
     vals AS (
       SELECT key, value FROM entries WHERE type = 'text'
       UNION ALL
       SELECT e.key, a.value FROM entries e, json_each(e.value) a WHERE e.type = 'array' AND a.type = 'text'
     ),
     grouped AS (SELECT key, value, count(*) AS n FROM vals GROUP BY key, value),
     ranked AS (
       SELECT key, value, n,
              row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank,
              count(*) OVER (PARTITION BY key) AS distinct_values
         FROM grouped
     )
     SELECT key, value, n AS sources, distinct_values AS "distinct" FROM ranked WHERE rank <= $perKey
     ORDER BY key, rank`,
  );

/** Every (key, type) of the collection's source metadata, with counts and numeric ranges. */
export async function metadataKeys(db: Db, collectionId: string): Promise<MetadataKeyRow[]> {
  return once(db, keysStatement).all({ collectionId });
}

/** The `perKey` most common string values of each key, most common first. */
export async function topMetadataValues(db: Db, collectionId: string, perKey: number): Promise<MetadataValueRow[]> {
  return once(db, valuesStatement).all({ collectionId, perKey });
}

const stampStatement = (db: Db) =>
  db.$client.prepare<{ changed: string | null }, { collectionId: string }>(
    `SELECT max(updated_at) AS changed FROM documents WHERE collection_id = $collectionId`,
  );

/**
 * The last change to a source of the collection (one step down an index): a summary
 * computed earlier still holds while it is the same. A deleted source does not move it.
 */
export async function metadataStamp(db: Db, collectionId: string): Promise<string> {
  return once(db, stampStatement).get({ collectionId })?.changed ?? "";
}
