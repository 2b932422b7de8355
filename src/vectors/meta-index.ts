/**
 * How a source's metadata is stored in each of its chunk rows, and the SQL
 * predicates that read it back (docs/ARCHITECTURE.md, "Metadata in the index").
 *
 * One nullable JSON column, `metadata`, holds a flat object whose keys say both the
 * metadata key and what a filter asks of it, so every test is a single key lookup
 * (LanceDB's `json_get*`; looking inside a JSON array was 12× slower):
 *
 * - `?k`        present, whatever the value's type ($exists)
 * - `s:k`       a string value (range comparisons)
 * - `n:k`       a number value
 * - `b:k`       a boolean value
 * - `=k=v`      the string v is the value or one element of the array value
 *
 * Keys cannot hold `=` (src/core/metadata.ts), so `=k=v` is unambiguous. A row with
 * a null column (written before metadata existed) simply has no keys.
 */
import type { Metadata } from "../core/metadata";
import { sqlString } from "./tables";

export const METADATA_COLUMN = "metadata";

/** The source fields filters may name beside metadata keys. */
export interface IndexedSourceFields {
  sourceType: string;
  externalId: string | null;
}

/** The JSON text stored in each chunk row of a source. */
export function encodeChunkMetadata(meta: Metadata, source: IndexedSourceFields): string {
  const out: Record<string, string | number | boolean> = {};
  const put = (key: string, value: Metadata[string]) => {
    out[`?${key}`] = 1;
    if (typeof value === "number") out[`n:${key}`] = value;
    else if (typeof value === "boolean") out[`b:${key}`] = value;
    else if (typeof value === "string") {
      out[`s:${key}`] = value;
      out[`=${key}=${value}`] = 1;
    } else for (const item of value) out[`=${key}=${item}`] = 1;
  };
  for (const [key, value] of Object.entries(meta)) put(key, value);
  put("sourceType", source.sourceType);
  if (source.externalId !== null) put("externalId", source.externalId);
  return JSON.stringify(out);
}

export type Comparison = "=" | ">" | ">=" | "<" | "<=";

/** Some value of key `key` is present. */
export function hasKey(key: string): string {
  return `(json_get(${METADATA_COLUMN}, ${sqlString(`?${key}`)}) IS NOT NULL)`;
}

/** The string `value` is the key's value or an element of its array value. */
export function hasString(key: string, value: string): string {
  return `(json_get(${METADATA_COLUMN}, ${sqlString(`=${key}=${value}`)}) IS NOT NULL)`;
}

/** The key's number value compares as asked; false when it has none. */
export function compareNumber(key: string, op: Comparison, value: number): string {
  // A literal like 1e21 or 0.1 is a valid SQL float; integers get ".0" so both sides are floats.
  const lit = Number.isInteger(value) && Math.abs(value) < 1e15 ? `${value}.0` : String(value);
  return `coalesce(json_get_float(${METADATA_COLUMN}, ${sqlString(`n:${key}`)}) ${op} ${lit}, false)`;
}

/** The key's (non-array) string value compares as asked, by code point; false when it has none. */
export function compareString(key: string, op: Exclude<Comparison, "=">, value: string): string {
  return `coalesce(json_get_string(${METADATA_COLUMN}, ${sqlString(`s:${key}`)}) ${op} ${sqlString(value)}, false)`;
}

/** The key's boolean value is `value`; false when it has none. */
export function isBoolean(key: string, value: boolean): string {
  return `coalesce(json_get_bool(${METADATA_COLUMN}, ${sqlString(`b:${key}`)}) = ${value}, false)`;
}
