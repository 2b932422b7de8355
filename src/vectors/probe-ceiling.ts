/**
 * How many IVF partitions a filtered vector search may probe.
 *
 * A prefiltered IVF search probes up to its ceiling (LanceDB's maximum nprobes), and
 * with every partition as the ceiling it searched all of them even when the filter
 * matched every row: at 1M chunks a filtered vector query took 210–580 ms against
 * 33–59 ms unfiltered. The ceiling follows the filter's share of the rows instead:
 * about `minimum / share` partitions hold as many matching rows as `minimum`
 * partitions hold rows, so a filter matching every row probes like no filter, and a
 * narrow one probes more (capped at all partitions). The count comes from the
 * LABEL_LIST index for equality, `$in` and `$exists` (docs/ARCHITECTURE.md, Metadata
 * in the index) in about 1 ms at 100,000 rows and is kept briefly per table version
 * and filter. A range comparison would be counted by reading every row's JSON (70 ms
 * there), so such a filter keeps every partition as its ceiling.
 */
import type { Table } from "@lancedb/lancedb";
import type { AnnProbes } from "./ann-probes";
import { readsMetadataJson } from "./meta-index";
import { allDone } from "../tools/all-done";

/** A count is reused this long (and only while the table's version is unchanged). */
const COUNT_TTL_MS = 30_000;
/** Counts kept per table; the oldest is dropped past this. */
const MAX_COUNTS = 256;

interface Count {
  version: number;
  at: number;
  matches: number;
  rows: number;
}

const counts = new WeakMap<Table, Map<string, Count>>();

/** The ceiling for a filtered search, how many rows the filter matches, and the table's rows. */
export interface FilteredProbes {
  ceiling: number;
  matches: number;
  rows: number;
}

/** Probe ceiling for a search filtered by `filter` over an IVF index probed as `ann` says. */
export async function filteredProbes(table: Table, filter: string, ann: AnnProbes): Promise<FilteredProbes | null> {
  if (readsMetadataJson(filter)) return null;
  const { matches, rows } = await countMatches(table, filter);
  return { ceiling: ceilingFor(ann, matches, rows), matches, rows };
}

/** About minimum ÷ share partitions, between minimum and maximum. */
export function ceilingFor(ann: AnnProbes, matches: number, rows: number): number {
  if (matches <= 0 || rows <= 0) return ann.maximum;
  const share = Math.min(1, matches / rows);
  return Math.max(ann.minimum, Math.min(ann.maximum, Math.ceil(ann.minimum / share)));
}

async function countMatches(table: Table, filter: string): Promise<{ matches: number; rows: number }> {
  const version = await table.version();
  let byFilter = counts.get(table);
  if (!byFilter) counts.set(table, (byFilter = new Map()));
  const now = Date.now();
  const known = byFilter.get(filter);
  if (known && known.version === version && now - known.at < COUNT_TTL_MS) return known;
  const [matches, rows] = await allDone([table.countRows(filter), table.countRows()]);
  byFilter.delete(filter);
  if (byFilter.size >= MAX_COUNTS) byFilter.delete(byFilter.keys().next().value!);
  byFilter.set(filter, { version, at: now, matches, rows });
  return { matches, rows };
}
