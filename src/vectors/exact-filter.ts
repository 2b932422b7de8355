/**
 * Which way a filtered vector search goes: exactly over the rows the filter matches,
 * or through the ANN index with a probe ceiling (probe-ceiling.ts).
 *
 * A narrow filter leaves few matches in each partition, so the index path probes every
 * partition and costs about what the table's size says, whatever the filter matches:
 * at 1M chunks a 1 % filter took 210–340 ms against 33–59 ms unfiltered. An exact
 * (flat) search with the same `where` reads only the matching rows' vectors (the
 * LABEL_LIST or b-tree index gives their row ids: its plan scans as many rows as
 * match), so it costs what the matches say, and its recall is 1.0. The two costs
 * cross near a share of the table (EXACT_FILTER, figures there).
 * The count is the one the probe ceiling needs anyway, cached per table version; a
 * filter with a range comparison is not counted (that reads every row's JSON), so it
 * keeps the index path.
 */
import type { Table } from "@lancedb/lancedb";
import type { AnnProbes } from "./ann-probes";
import { filteredProbes } from "./probe-ceiling";

/**
 * A filter is searched exactly when its matches are at most `share` of the table's rows
 * less `offset`, and at most `rows`.
 */
export interface ExactFilterLimits {
  share: number;
  offset: number;
  rows: number;
}

/**
 * Measured on bench/filter.ts's tables (384-d, topK 10, the index path probed as the
 * server does, both paths query by query in turn, CPU ms per query, on 2 cores loaded
 * by other work), index → exact:
 *
 * - 1M chunks (IVF_PQ, 1,000 partitions): 1,000 matches 75 → 15, 10,000: 179 → 66,
 *   50,000: 183 → 156, 100,000: 167 → 153, 200,000: 195 → 299, 300,000: 123 → 480.
 *   The index path's recall@10 fell from 0.96 at 1,000 matches to 0.81 at 100,000.
 * - 100,000 chunks (IVF_FLAT): 1,000: 18 → 12, 5,000: 19 → 18, 10,000: 24 → 27,
 *   20,000: 30 → 42; wall p50 at 10,000 in a quieter run 17 → 26 ms.
 * - 20,000 chunks (HNSW): 1,000: 8 → 9, 2,000: 14 → 10, 6,000: 12 → 16, 20,000: 10 → 44.
 *
 * The index path's cost follows the table (about 0.18 µs of CPU a row: every partition is
 * scanned), the exact one's the matches (about 10 ms plus 1.5 µs a match at 100,000 rows,
 * more scattered at 1M). The crossings (100,000–200,000 matches at 1M, 5,000–10,000 at
 * 100,000) fit 12 % of the rows less 5,000: 115,000 at 1M, 7,000 at 100,000. A table
 * under about 42,000 rows keeps its index, which costs there about what an exact search
 * does. The cap keeps an exact search of a larger table within what was measured.
 */
export const EXACT_FILTER: ExactFilterLimits = { share: 0.12, offset: 5_000, rows: 100_000 };

export type FilteredPath = "exact" | "index";

/** The path for a filter matching `matches` of a table's `rows`. */
export function filteredPath(matches: number, rows: number, limits = EXACT_FILTER): FilteredPath {
  return matches <= Math.min(limits.rows, limits.share * rows - limits.offset) ? "exact" : "index";
}

/** How a filtered search over an ANN index runs: its path, and the index path's probe ceiling. */
export interface FilteredPlan {
  path: FilteredPath;
  ceiling: number;
  matches: number;
}

/** The plan for `filter` over a table probed as `ann` says; null when the filter is not counted (a range). */
export async function planFilteredSearch(
  table: Table,
  filter: string,
  ann: AnnProbes,
  limits = EXACT_FILTER,
): Promise<FilteredPlan | null> {
  const probes = await filteredProbes(table, filter, ann);
  return (
    probes && {
      path: filteredPath(probes.matches, probes.rows, limits),
      ceiling: probes.ceiling,
      matches: probes.matches,
    }
  );
}
