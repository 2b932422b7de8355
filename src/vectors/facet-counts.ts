/**
 * Counts of metadata values over the rows a filter keeps, for a query's `facets`
 * (retrieval/facets.ts): reads only the `metadata_terms` column (meta-index.ts), whose
 * `=k=v`, `#k=n` and `!k=b` terms are each one value of key k, and stops after `limit` rows.
 */
import type { Table } from "@lancedb/lancedb";
import type { Data, List, Utf8 } from "apache-arrow";
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
  const counter = new TermCounter(keys);
  let q = table
    .query()
    .select([METADATA_TERMS_COLUMN])
    .limit(limit + 1);
  if (where) q = q.where(where);
  let rows = 0;
  for await (const batch of q) {
    for (const data of batch.getChild(METADATA_TERMS_COLUMN)!.data) {
      rows += counter.add(data as Data<List<Utf8>>, limit - rows);
      if (rows >= limit) break;
    }
    if (rows >= limit) break;
  }
  const truncated = rows >= limit && (await moreThan(table, where, limit));
  return { counts: counter.counts(), rows, truncated };
}

/**
 * Counts value terms straight from the column's Arrow buffers: a term is compared as bytes
 * with the wanted keys' prefixes (`=k=`, `#k=`, `!k=`) and decoded only when it matches and
 * differs from the last one counted (the chunks of a source carry the same terms, in a row),
 * so a row costs no string of its own. Reading each row's list as strings was most of a
 * facet count's time (docs/notes/2026-12-06-query-options.md).
 */
class TermCounter {
  private readonly prefixes: { key: string; bytes: Uint8Array }[];
  private readonly byKey = new Map<string, Map<string, number>>();
  /** Per prefix, the last term counted: its bytes and its entry's key. */
  private readonly last: ({ bytes: Uint8Array; term: string } | null)[];
  private readonly decoder = new TextDecoder();

  constructor(keys: string[]) {
    const encoder = new TextEncoder();
    this.prefixes = keys.flatMap((key) => ["=", "#", "!"].map((k) => ({ key, bytes: encoder.encode(`${k}${key}=`) })));
    this.last = this.prefixes.map(() => null);
    for (const key of keys) this.byKey.set(key, new Map());
  }

  /** Counts the terms of at most `room` rows of one list array; the rows counted. */
  add(data: Data<List<Utf8>>, room: number): number {
    const n = Math.min(data.length, room);
    const rowEnds = data.valueOffsets;
    const terms = data.children[0]!;
    const ends = terms.valueOffsets;
    const bytes = terms.values;
    for (let row = 0; row < n; row++) {
      if (!data.getValid(row)) continue;
      const first = rowEnds[row]!;
      const stop = rowEnds[row + 1]!;
      for (let t = first; t < stop; t++) this.term(bytes, ends[t]!, ends[t + 1]!);
    }
    return n;
  }

  counts(): Map<string, Map<string, number>> {
    return this.byKey;
  }

  private term(bytes: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    const kind = bytes[start];
    if (kind !== 0x3d && kind !== 0x23 && kind !== 0x21) return; // = # !
    for (let p = 0; p < this.prefixes.length; p++) {
      const prefix = this.prefixes[p]!.bytes;
      if (end - start < prefix.length || !startsWith(bytes, start, prefix)) continue;
      const last = this.last[p];
      const term =
        last && sameBytes(bytes, start, end, last.bytes) ? last.term : this.decoder.decode(bytes.subarray(start, end));
      if (term !== last?.term) this.last[p] = { bytes: bytes.slice(start, end), term };
      const values = this.byKey.get(this.prefixes[p]!.key)!;
      values.set(term, (values.get(term) ?? 0) + 1);
      return;
    }
  }
}

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  for (let j = 0; j < prefix.length; j++) if (bytes[at + j] !== prefix[j]) return false;
  return true;
}

function sameBytes(bytes: Uint8Array, start: number, end: number, other: Uint8Array): boolean {
  return end - start === other.length && startsWith(bytes, start, other);
}

async function moreThan(table: Table, where: string | undefined, limit: number): Promise<boolean> {
  return (await table.countRows(where)) > limit;
}
