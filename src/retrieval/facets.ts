/**
 * A query's `facets` option (docs/API.md, Query, "Facets"): for each named metadata
 * key, its FACET_VALUES most frequent values and how many chunks hold each, among the
 * chunks the request's filter and the caller's access leave (the query text plays no
 * part, so an app can build its filter UI from one answer). Bounded: only the
 * `metadata_terms` column of at most FACET_ROWS matching rows is read, and past that
 * the answer says `facetsTruncated: true` (the counts are then of the first FACET_ROWS
 * rows in table order). Answers are cached per table version, filter and keys, so a
 * table not written since gives the same counts without reading it again.
 */
import { RecentCache } from "../tools/recent-cache";
import type { VectorStore } from "../vectors/store";
import { inList } from "../vectors/tables";
import { RetrievalError } from "./errors";

export const FACET_KEYS = 10;
export const FACET_VALUES = 10;
export const FACET_ROWS = 100_000;

/** One value of a key and the chunks that hold it. */
export interface FacetValue {
  value: string | number | boolean;
  count: number;
}

export interface FacetAnswer {
  facets: Record<string, FacetValue[]>;
  /** True when more than FACET_ROWS chunks matched, so the counts are of the first FACET_ROWS. */
  truncated: boolean;
}

/** Counts facets of collection tables, with a cache shared by every search. */
export class FacetCounter {
  private readonly cache = new RecentCache<string, FacetAnswer>(500);

  constructor(private readonly vectorStore: VectorStore) {}

  /** The facets of `keys` over the rows of `sourceIds` (all when undefined) that `where` keeps, in one generation. */
  async count(
    collectionId: string,
    generation: number,
    keys: string[],
    rows: { where?: string; sourceIds?: string[] },
  ): Promise<FacetAnswer> {
    const parts = [rows.sourceIds ? inList("document_id", rows.sourceIds) : undefined, rows.where];
    const where =
      parts
        .filter((p) => p !== undefined)
        .map((p) => `(${p})`)
        .join(" AND ") || undefined;
    const version = await this.vectorStore.tableVersion(collectionId, generation);
    if (version === null) return { facets: Object.fromEntries(keys.map((k) => [k, []])), truncated: false };
    const cacheKey = JSON.stringify([collectionId, generation, version, where ?? "", keys]);
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const found = await this.vectorStore.termCounts(collectionId, generation, keys, where, FACET_ROWS);
    const facets: Record<string, FacetValue[]> = {};
    for (const key of keys) facets[key] = topValues(found?.counts.get(key));
    const answer = { facets, truncated: found?.truncated ?? false };
    this.cache.set(cacheKey, answer);
    return answer;
  }
}

/**
 * Facet keys as asked: at most FACET_KEYS, each named once. `_access` (the per-document
 * access lists, docs/API.md, Access rules) is refused: its values name who else may see a source.
 */
export function checkFacetKeys(keys: string[] | undefined): string[] | undefined {
  if (keys === undefined) return undefined;
  const problem =
    keys.length > FACET_KEYS
      ? `at most ${FACET_KEYS} keys`
      : keys.includes("_access")
        ? "_access cannot be counted"
        : null;
  if (problem) throw new RetrievalError("invalid_request", `facets: ${problem}`, { field: "facets", message: problem });
  return [...new Set(keys)];
}

/** The most frequent values, most chunks first, then by value; each term back to its typed value. */
function topValues(counts: Map<string, number> | undefined): FacetValue[] {
  if (!counts) return [];
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, FACET_VALUES)
    .map(([term, count]) => ({ value: termValue(term), count }));
}

/** `=k=v` is the string v, `#k=n` the number n, `!k=b` the boolean b (vectors/meta-index.ts). */
function termValue(term: string): string | number | boolean {
  const value = term.slice(term.indexOf("=", 1) + 1);
  if (term[0] === "#") return Number(value);
  if (term[0] === "!") return value === "true";
  return value;
}
