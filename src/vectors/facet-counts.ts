/**
 * Counts of metadata values over the rows a filter keeps, for a query's `facets`
 * (retrieval/facets.ts): reads only the `metadata_terms` column (meta-index.ts), whose
 * `=k=v`, `#k=n` and `!k=b` terms are each one value of key k, and stops after `limit` rows.
 */
import type { Table } from "@lancedb/lancedb";
import { METADATA_TERMS_COLUMN } from "./meta-index";

/** Per key, how many rows hold each value term; `rows` read; `truncated` when rows stopped at the limit. */
export interface TermCounts {
  counts: Map<string, Map<string, number>>;
  rows: number;
  truncated: boolean;
}

/** The value terms of `keys` counted over the rows `where` keeps (all when undefined), at most `limit` rows. */
export async function countTerms(
  table: Table,
  keys: string[],
  where: string | undefined,
  limit: number,
): Promise<TermCounts> {
  const wanted = new Set(keys);
  const counts = new Map(keys.map((k) => [k, new Map<string, number>()]));
  let q = table
    .query()
    .select([METADATA_TERMS_COLUMN])
    .limit(limit + 1);
  if (where) q = q.where(where);
  let rows = 0;
  for await (const batch of q) {
    const col = batch.getChild(METADATA_TERMS_COLUMN)!;
    for (let i = 0; i < col.length && rows < limit; i++, rows++) {
      const terms = col.get(i) as Iterable<string> | null;
      if (terms) countRow(terms, wanted, counts);
    }
    if (rows >= limit) break;
  }
  const truncated = rows >= limit && (await moreThan(table, where, limit));
  return { counts, rows, truncated };
}

function countRow(terms: Iterable<string>, wanted: Set<string>, counts: Map<string, Map<string, number>>): void {
  for (const term of terms) {
    const kind = term[0];
    if (kind !== "=" && kind !== "#" && kind !== "!") continue;
    const cut = term.indexOf("=", 1);
    const key = term.slice(1, cut);
    if (!wanted.has(key)) continue;
    const values = counts.get(key)!;
    values.set(term, (values.get(term) ?? 0) + 1);
  }
}

async function moreThan(table: Table, where: string | undefined, limit: number): Promise<boolean> {
  return (await table.countRows(where)) > limit;
}
