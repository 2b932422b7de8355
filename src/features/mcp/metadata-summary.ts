/**
 * What a model needs to write `filter.metadata` for one pipeline (docs/API.md, MCP):
 * the metadata keys its sources carry, their value types, and their most common
 * string values. `search`'s description carries a bounded text of it, `list_metadata`
 * the fuller object.
 *
 * Each MCP request builds its own server (routes.ts), so the summary is kept per
 * pipeline and only recomputed when the pipeline's sources changed (a cheap stamp,
 * checked at most once a second) or after a minute. At 20,000 sources of six keys
 * each it costs 0.2–1 s (two cores under load), hence the cache and its rate bound.
 */
import type { Db } from "../../db/client";
import { metadataKeys, metadataStamp, topMetadataValues } from "../../db/repo/metadata-keys";

export const SUMMARY_LIMITS = { keys: 100, values: 10, valueChars: 200 } as const;
/** What goes into the tool description, which every model reads on every turn. */
export const DESCRIPTION_LIMITS = { keys: 30, values: 10, valueChars: 40, fewDistinct: 50 } as const;

/** A summary younger than this is used without looking at the sources. */
const RECHECK_MS = 1000;
/** Deleting a source does not move the stamp: a summary is recomputed after this anyway. */
const MAX_AGE_MS = 60_000;
const COST_SHARE = 20;
/** A summary can reach ~200 KB (100 keys × 10 values × 200 characters): this bounds the cache to ~20 MB. */
const MAX_PIPELINES = 100;

export type ValueType = "string" | "number" | "boolean" | "string[]";

export interface KeySummary {
  key: string;
  types: ValueType[];
  /** Sources holding the key. */
  sources: number;
  /** Distinct string values (array items one by one); absent for keys without strings. */
  distinctValues?: number;
  /** The most common string values, most common first. */
  values?: { value: string; sources: number }[];
  min?: number;
  max?: number;
}

export interface MetadataSummary {
  /** Keys by how many sources hold them, most first; at most SUMMARY_LIMITS.keys. */
  keys: KeySummary[];
  /** All distinct keys, including any left out of `keys`. */
  totalKeys: number;
}

interface Entry {
  stamp: string;
  computedAt: number;
  costMs: number;
  summary: MetadataSummary;
  description: string;
}

const cache = new Map<string, Entry>();

const TYPES: Record<string, ValueType> = {
  integer: "number",
  real: "number",
  text: "string",
  true: "boolean",
  false: "boolean",
  array: "string[]",
};

/** The pipeline's summary and the description text made of it, from the cache when still true. */
export async function pipelineMetadata(db: Db, collectionId: string, now = Date.now()): Promise<Entry> {
  const hit = cache.get(collectionId);
  if (hit && now - hit.computedAt < MAX_AGE_MS) {
    // Recomputing at most every COST_SHARE times its own cost bounds the time spent here while a
    // large pipeline ingests (each status change moves the stamp).
    const settled = now - hit.computedAt < Math.max(RECHECK_MS, hit.costMs * COST_SHARE);
    if (settled || (await metadataStamp(db, collectionId)) === hit.stamp) return hit;
  }
  const stamp = await metadataStamp(db, collectionId);
  const started = performance.now();
  const summary = await summarize(db, collectionId);
  const costMs = performance.now() - started;
  const entry = { stamp, computedAt: now, costMs, summary, description: describeSummary(summary) };
  cache.delete(collectionId);
  if (cache.size >= MAX_PIPELINES) cache.delete(cache.keys().next().value!);
  cache.set(collectionId, entry);
  return entry;
}

/** Computes the summary from the sources' metadata (two queries). */
export async function summarize(db: Db, collectionId: string): Promise<MetadataSummary> {
  const byKey = new Map<string, KeySummary>();
  for (const r of await metadataKeys(db, collectionId)) {
    const k = byKey.get(r.key) ?? { key: r.key, types: [], sources: 0 };
    const type = TYPES[r.type];
    if (type && !k.types.includes(type)) k.types.push(type);
    k.sources += r.sources;
    if (r.min !== null) k.min = Math.min(k.min ?? r.min, r.min);
    if (r.max !== null) k.max = Math.max(k.max ?? r.max, r.max);
    byKey.set(r.key, k);
  }
  // A key written between the two reads has no entry yet: its values wait for the next summary.
  for (const v of await topMetadataValues(db, collectionId, SUMMARY_LIMITS.values)) {
    const k = byKey.get(v.key);
    if (!k) continue;
    k.distinctValues = v.distinct;
    (k.values ??= []).push({ value: cut(v.value, SUMMARY_LIMITS.valueChars), sources: v.sources });
  }
  const all = [...byKey.values()].sort((a, b) => b.sources - a.sources || a.key.localeCompare(b.key));
  return { keys: all.slice(0, SUMMARY_LIMITS.keys), totalKeys: all.length };
}

const BUILT_IN = 'sourceType ("text", "file", "url" or "api") and externalId (the id a client gave a source)';

/** The paragraph appended to `search`'s description: one line a key, bounded by DESCRIPTION_LIMITS. */
export function describeSummary(s: MetadataSummary): string {
  if (s.keys.length === 0)
    return `No source of this pipeline has metadata yet; filter.metadata can still use ${BUILT_IN}.`;
  const lines = s.keys.slice(0, DESCRIPTION_LIMITS.keys).map(describeKey);
  const more = s.totalKeys - lines.length;
  return [
    "Metadata keys of this pipeline's sources, for filter.metadata (key: types, how many sources hold it, common values):",
    ...lines,
    ...(more > 0 ? [`- and ${more} more keys: call list_metadata to see them all.`] : []),
    `filter.metadata also takes ${BUILT_IN}.`,
  ].join("\n");
}

function describeKey(k: KeySummary): string {
  let line = `- ${k.key}: ${k.types.join(" or ")}, ${k.sources} source${k.sources === 1 ? "" : "s"}`;
  if (k.min !== undefined && k.max !== undefined) line += k.min === k.max ? `, ${k.min}` : `, ${k.min} to ${k.max}`;
  if (k.values?.length) {
    const few = (k.distinctValues ?? 0) <= DESCRIPTION_LIMITS.fewDistinct;
    const shown = k.values.slice(0, few ? DESCRIPTION_LIMITS.values : 3);
    const quoted = shown.map((v) => JSON.stringify(cut(v.value, DESCRIPTION_LIMITS.valueChars))).join(", ");
    const all = shown.length === k.distinctValues;
    line += all ? `; values ${quoted}` : `; ${k.distinctValues} distinct values, e.g. ${quoted}`;
  }
  return line;
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
