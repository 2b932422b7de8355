/**
 * The limits of table upkeep (table-upkeep.ts): how long a table's upkeep may hold its
 * lease, how long unnamed objects are left, and the full-text tails caught up while
 * ingestion runs or before a search.
 */

/**
 * Runs `fn` unless another process runs upkeep of the same name (undefined then): with
 * replicas, one of them at a time compacts or trains a table (the metadata store's
 * `exclusive`). Alone, it always runs.
 */
export type Lease = <T>(name: string, fn: () => Promise<T>) => Promise<T | undefined>;
/**
 * How long one table's upkeep may hold its lease (the store's `exclusive`) before it is
 * given up: longer than the default, as an ANN build of millions of rows takes many minutes.
 */
export const UPKEEP_TIMEOUT_MS = 2 * 3600_000;

/**
 * How old an object no table version names must be before housekeeping removes it
 * (removeUnnamed): far beyond any write, and beyond UPKEEP_TIMEOUT_MS, after which
 * another replica may build an index while an overdue build still runs.
 */
export const UNNAMED_GRACE_MS = 24 * 3600_000;
/** Unindexed rows after which a table's full-text index is caught up even while ingestion runs. */
export const FTS_TAIL_ROWS = 5_000;
/** A table searched this recently has its tail caught up while ingestion runs (catchUpTails). */
export const TAILS_SEARCHED_MS = 10 * 60_000;
/**
 * A table of fewer rows has the full-text tail this process wrote caught up before a search
 * (beforeSearch): 20–130 ms from 100 to 5,000 rows of 60 words, on the bench machine.
 */
export const SMALL_TABLE_ROWS = 5_000;
/**
 * ...once that tail is this share of the rows or more: the index's statistics are then
 * far from the table's. So a small table written and searched all the time is caught up
 * each time it has grown by a quarter, not after every commit (which held a loaded
 * server's ingestion until its queue was full).
 */
export const SEARCH_TAIL_SHARE = 0.25;
