/**
 * Named queries over the metadata of a collection's sources (docs/API.md, MCP,
 * `list_metadata`): which keys exist, of which types, on how many sources, and
 * their most common string values. Both read `documents.metadata` with SQLite's
 * json_each, over the rows of one collection only (the collection index).
 * On PostgreSQL, `metadata` is text read as `json` (not jsonb, which rewrites numbers:
 * `1e+21` would lose the lexical form that makes SQLite call it real), and json_each's
 * SQLite type names are rebuilt from json_typeof, so both engines return the same rows.
 */
import type { Db } from "../client";
import { first, type PlainSql, selectRows } from "../dialect";

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

/**
 * SQLite's json_each type of a PostgreSQL `json` value `v`: a number is real when its text
 * has a fraction or an exponent (as SQLite decides), true and false are types of their own.
 */
const sqliteType = (v: string) => `CASE json_typeof(${v})
         WHEN 'number' THEN CASE WHEN ${v}::text ~ '[.eE]' THEN 'real' ELSE 'integer' END
         WHEN 'string' THEN 'text'
         WHEN 'boolean' THEN ${v}::text
         ELSE json_typeof(${v}) END`;

const KEYS: PlainSql = {
  sqlite: `SELECT j.key AS key, j.type AS type, count(*) AS sources,
            CASE WHEN j.type IN ('integer', 'real') THEN min(j.value) END AS min,
            CASE WHEN j.type IN ('integer', 'real') THEN max(j.value) END AS max
       FROM documents d, json_each(d.metadata) j
      WHERE d.collection_id = $collectionId
      GROUP BY j.key, j.type`,
  // The numeric cast sits inside the aggregate: PostgreSQL computes an aggregate for every
  // group before CASE picks it, and a string would not cast.
  pg: `WITH entries AS (
       SELECT j.key AS key, ${sqliteType("j.value")} AS type, j.value AS value
         FROM documents d, json_each(d.metadata::json) j
        WHERE d.collection_id = $collectionId
     )
     SELECT key, type, count(*)::integer AS sources,
            min(CASE WHEN type IN ('integer', 'real') THEN (value::text)::float8 END) AS min,
            max(CASE WHEN type IN ('integer', 'real') THEN (value::text)::float8 END) AS max
       FROM entries
      GROUP BY key, type
      ORDER BY key COLLATE "C", type COLLATE "C"`,
};

// Ranked in SQL so a key with thousands of distinct values (titles, ids) sends back only its top rows.
// On PostgreSQL, strings compare by byte (COLLATE "C") as SQLite's do, so that ties between
// equally common values rank the same; counts are bigint there, cast back to integers.
const VALUES: PlainSql = {
  sqlite: `WITH entries AS (
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
  // An array's elements are read only for arrays (the CASE): PostgreSQL runs the function
  // for every entry before the WHERE, and it throws on a scalar.
  pg: `WITH entries AS (
       SELECT j.key AS key, json_typeof(j.value) AS type, j.value AS value
         FROM documents d, json_each(d.metadata::json) j
        WHERE d.collection_id = $collectionId AND json_typeof(j.value) IN ('string', 'array')
     ),
     vals AS (
       SELECT key, value #>> '{}' AS value FROM entries WHERE type = 'string'
       UNION ALL
       SELECT e.key, a.value #>> '{}'
         FROM entries e, json_array_elements(CASE WHEN e.type = 'array' THEN e.value END) a
        WHERE e.type = 'array' AND json_typeof(a.value) = 'string'
     ),
     grouped AS (SELECT key, value, count(*) AS n FROM vals GROUP BY key, value),
     ranked AS (
       SELECT key, value, n,
              row_number() OVER (PARTITION BY key ORDER BY n DESC, value COLLATE "C") AS rank,
              count(*) OVER (PARTITION BY key) AS distinct_values
         FROM grouped
     )
     SELECT key, value, n::integer AS sources, distinct_values::integer AS "distinct" FROM ranked WHERE rank <= $perKey
     ORDER BY key COLLATE "C", rank`,
};

/** Every (key, type) of the collection's source metadata, with counts and numeric ranges. */
export async function metadataKeys(db: Db, collectionId: string): Promise<MetadataKeyRow[]> {
  return selectRows<MetadataKeyRow>(db, KEYS, { collectionId });
}

/** The `perKey` most common string values of each key, most common first. */
export async function topMetadataValues(db: Db, collectionId: string, perKey: number): Promise<MetadataValueRow[]> {
  return selectRows<MetadataValueRow>(db, VALUES, { collectionId, perKey });
}

const STAMP: PlainSql = {
  sqlite: `SELECT max(updated_at) AS changed FROM documents WHERE collection_id = $collectionId`,
  pg: `SELECT max(updated_at) AS changed FROM documents WHERE collection_id = $collectionId`,
};

/**
 * The last change to a source of the collection (one step down an index): a summary
 * computed earlier still holds while it is the same. A deleted source does not move it.
 */
export async function metadataStamp(db: Db, collectionId: string): Promise<string> {
  return first(await selectRows<{ changed: string | null }>(db, STAMP, { collectionId }))?.changed ?? "";
}
