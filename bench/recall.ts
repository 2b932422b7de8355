/**
 * Recall@k of an approximate answer against exact search, counted two ways, for the
 * benches that measure it (bench/ann-sizes.ts, bench/query-http.ts).
 *
 * By id: the share of the exact top k's rows that the answer returned. With ties, as
 * ann-benchmarks counts it: a returned row is a hit when its exact distance is at most
 * the k-th exact distance + TIE_EPSILON, so a row exactly as near as the k-th counts
 * although the exact search, breaking the tie its own way, listed another one. The
 * by-id count is the one the targets use; the other says how much of its loss
 * is only ties.
 */

/** ann-benchmarks' default epsilon on the distance (here cosine distance, 1 − cosine). */
export const TIE_EPSILON = 1e-3;

/** Hits among the first k returned rows: by id, and within TIE_EPSILON of the k-th exact distance. */
export interface RecallHits {
  byId: number;
  withTies: number;
}

/**
 * Counts the hits of `returned` (row ids, best first) against `truth` (the exact top k's
 * ids); `distance` gives a row's exact distance to the query.
 *
 * @example recallHits(["a", "x"], new Set(["a", "b"]), d, 2) // x as near as b: { byId: 1, withTies: 2 }
 */
export function recallHits(
  returned: string[],
  truth: Set<string>,
  distance: (id: string) => number,
  k: number,
  epsilon = TIE_EPSILON,
): RecallHits {
  const top = returned.slice(0, k);
  let kth = Number.NEGATIVE_INFINITY;
  for (const id of truth) kth = Math.max(kth, distance(id));
  return {
    byId: top.filter((id) => truth.has(id)).length,
    withTies: top.filter((id) => truth.has(id) || distance(id) <= kth + epsilon).length,
  };
}

/**
 * Exact cosine distances of stored rows, by row id, from the bench's own copy of every
 * vector (`all`, row i at i × dim, with id `ids[i]`).
 */
export function exactDistances(all: Float32Array, ids: string[], dim: number) {
  const rowOf = new Map(ids.map((id, i) => [id, i]));
  return (q: Float32Array) =>
    (id: string): number => {
      const row = rowOf.get(id);
      if (row === undefined) throw new Error(`no stored vector for ${id}`);
      let dot = 0;
      let qq = 0;
      let vv = 0;
      for (let j = 0, off = row * dim; j < dim; j++, off++) {
        dot += all[off]! * q[j]!;
        qq += q[j]! * q[j]!;
        vv += all[off]! * all[off]!;
      }
      return qq && vv ? 1 - dot / Math.sqrt(qq * vv) : 1;
    };
}

/** Sums RecallHits over queries; `format` gives both recalls, e.g. "0.912 (0.996 with ties)". */
export class RecallTally {
  private byId = 0;
  private withTies = 0;
  private asked = 0;

  constructor(private readonly k: number) {}

  add(hits: RecallHits): void {
    this.byId += hits.byId;
    this.withTies += hits.withTies;
    this.asked += this.k;
  }

  get recall(): number {
    return this.asked ? this.byId / this.asked : 0;
  }

  get recallWithTies(): number {
    return this.asked ? this.withTies / this.asked : 0;
  }

  format(): string {
    return `${this.recall.toFixed(3)} (${this.recallWithTies.toFixed(3)} with ties)`;
  }
}

/** The 10 best ids of several scored lists together, each id at its best score. */
export function unionTop10(lists: { id: string; score: number }[][]): string[] {
  const by = new Map<string, number>();
  for (const l of lists) for (const h of l) by.set(h.id, Math.max(by.get(h.id) ?? 0, h.score));
  return [...by.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([id]) => id);
}
