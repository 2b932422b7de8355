/**
 * The vector half of a search (vector mode, and hybrid's vector list): the nearest
 * rows to the query by cosine, through the ANN index when the table has one.
 */
import type { Table, VectorQuery } from "@lancedb/lancedb";
import type { AnnProbes } from "./ann";
import { clamp01, COLUMNS, type Ranked, toHit } from "./hits";
import { filteredProbes } from "./probe-ceiling";

/** The `limit` nearest rows matching `filter`, best first, scored by cosine similarity. */
export async function vectorHits(
  table: Table,
  vector: Float32Array,
  limit: number,
  filter: string | null,
  ann: AnnProbes | null,
): Promise<Ranked[]> {
  // Filtered IVF search probes as far as the filter's share of the rows asks (probe-ceiling.ts).
  const ivf = filter && ann && ann.maximum > ann.minimum ? await filteredProbes(table, filter, ann) : null;
  // A filter left uncounted (a range comparison) may probe every partition, as it always could.
  const ceiling = filter ? (ivf?.ceiling ?? ann?.maximum) : undefined;
  let rows = await vectorQuery(table, vector, limit, filter, ann, ceiling).toArray();
  // Matches may cluster in partitions past the ceiling: once more over all of them, so a
  // filter matching at least topK rows still returns topK.
  if (ivf && ann && rows.length < limit && ivf.matches > rows.length && ivf.ceiling < ann.maximum)
    rows = await vectorQuery(table, vector, limit, filter, ann, ann.maximum).toArray();
  return rows.map((r) => toHit(r, clamp01(1 - Number(r._distance))));
}

function vectorQuery(
  table: Table,
  vector: Float32Array,
  limit: number,
  filter: string | null,
  ann: AnnProbes | null,
  ceiling: number | undefined,
): VectorQuery {
  let q: VectorQuery = table
    .vectorSearch(vector)
    .distanceType("cosine")
    .select([...COLUMNS, "_distance"])
    .limit(limit);
  // `where` on a vector query is a prefilter, so a narrow filter still yields topK rows.
  if (filter) q = q.where(filter);
  // Quantised distances are approximate: refine re-ranks ann.refine × limit candidates
  // exactly, and a probe ceiling above the minimum lets a filter search more partitions.
  // nprobes first (both bounds): LanceDB checks min ≤ max at each call, and its defaults are 20.
  if (ann) {
    q = q.nprobes(ann.minimum);
    if (ceiling && ceiling > ann.minimum) q = q.maximumNprobes(ceiling);
    if (ann.refine > 1) q = q.refineFactor(ann.refine);
    // HNSW refuses a candidate list shorter than the candidates asked for (limit × refine).
    if (ann.ef) q = q.ef(Math.max(ann.ef, limit * ann.refine));
  }
  return q;
}
