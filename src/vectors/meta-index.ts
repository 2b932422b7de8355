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
 *
 * LanceDB cannot index a JSON path, so the tests that are set membership also go to
 * a second column, `metadata_terms` (a list of strings with a LABEL_LIST index, which
 * `array_has_any` uses as a prefilter): `?k`, `=k=v`, `#k=<number>` and `!k=<bool>`.
 * Those conditions compile to the term column alone (it holds the same facts as the
 * JSON, so the predicate is exact); range comparisons still read the JSON.
 */
import type { Metadata } from "../core/metadata";
import { sqlString } from "./tables";

export const METADATA_COLUMN = "metadata";
export const METADATA_TERMS_COLUMN = "metadata_terms";

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

/**
 * Whether two of encodeChunkMetadata's outputs hold the same terms and values. A row's copy
 * comes back from its table with its keys in another order (LanceDB's JSON column), so
 * the strings differ where the labels do not.
 */
export function sameChunkMetadata(a: string, b: string): boolean {
  if (a === b) return true;
  const sorted = (json: string) => JSON.stringify(Object.entries(JSON.parse(json) as object).sort(byKey));
  return sorted(a) === sorted(b);
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

export type Comparison = "=" | ">" | ">=" | "<" | "<=";

/** The terms of one row, from its stored JSON (encodeChunkMetadata's output). */
export function metadataTerms(json: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, unknown>)) {
    if (k.startsWith("?") || k.startsWith("=")) out.push(k);
    else if (k.startsWith("n:")) out.push(numberTerm(k.slice(2), v as number));
    else if (k.startsWith("b:")) out.push(`!${k.slice(2)}=${v}`);
  }
  return out;
}

/** An equality test as a term: the value (or an element of the array value) equals `value`. */
export function valueTerm(key: string, value: string | number | boolean): string {
  if (typeof value === "string") return `=${key}=${value}`;
  if (typeof value === "number") return numberTerm(key, value);
  return `!${key}=${value}`;
}

/** Some value of key `key` is present. */
export function keyTerm(key: string): string {
  return `?${key}`;
}

// String() of a double round-trips it exactly, and 0 and -0 (which compare equal) both print "0".
function numberTerm(key: string, value: number): string {
  return `#${key}=${String(value)}`;
}

/** The row holds at least one of the terms. */
export function hasAnyTerm(terms: string[]): string {
  return `array_has_any(${METADATA_TERMS_COLUMN}, [${terms.map(sqlString).join(", ")}])`;
}

/**
 * Whether a `where` may read the JSON of every row (a range comparison) rather than
 * only indexed columns. A string value that happens to hold the name only makes a
 * caller take the slower path.
 */
export function readsMetadataJson(where: string): boolean {
  return where.includes("json_get_");
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
