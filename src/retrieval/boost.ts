/**
 * A query's `boost` option (docs/API.md, Query, "Boosts"): prefer recent sources and
 * sources whose metadata match, by scaling each candidate's score with a factor in [0, 1]:
 *
 *   score' = score × (1 − W + w_match · f_match + w_recency · f_recency)
 *
 * where W is the sum of the weights given (at most 1), f_match the share of the `match`
 * conditions the source meets, and f_recency = 0.5 ^ (age / halfLife), age being the time
 * from the source's date (a metadata key, else its `indexedAt`) to the query, 0 for a date
 * in the future, and f_recency = 0 when the source has no such date. A source that meets
 * every condition and is brand new keeps its score; the others lose up to W of it. The
 * factor never exceeds 1, so every score stays in [0, 1] and `minScore` keeps its meaning;
 * relevance still gates: a chunk that does not match the query gains nothing.
 */
import { RetrievalError } from "./errors";

/** The most `match` conditions one boost holds. */
export const BOOST_MATCH_KEYS = 10;
/** Default weights of the two boosts. */
export const DEFAULT_MATCH_WEIGHT = 0.3;
export const DEFAULT_RECENCY_WEIGHT = 0.3;
/** Half-lives outside these days are refused: under about 90 s, or beyond a century. */
export const MIN_HALF_LIFE_DAYS = 0.001;
export const MAX_HALF_LIFE_DAYS = 36_500;

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

export type BoostValue = string | number | boolean;

/** `boost` as a client sends it. */
export interface BoostRequest {
  /** Metadata key → value a source should have (an array value matches when one element does). */
  match?: Record<string, BoostValue>;
  matchWeight?: number;
  recency?: {
    /** A metadata key holding an ISO 8601 date; absent: the source's indexedAt. */
    key?: string;
    halfLifeDays: number;
    weight?: number;
  };
}

/** A checked boost with its defaults, and the time the query was asked. */
export interface ResolvedBoost {
  match?: { conditions: [string, BoostValue][]; weight: number };
  recency?: { key?: string; halfLifeMs: number; weight: number };
  now: number;
}

/** What the factor reads of a candidate: its flat metadata, and its source's indexing time (ms) when asked for. */
export interface BoostSubject {
  metadata: Record<string, unknown>;
  indexedAt?: number;
}

/** Checks a boost the schemas let through (their ranges hold) and applies its defaults. */
export function resolveBoost(boost: BoostRequest | null | undefined, now: number): ResolvedBoost | undefined {
  if (boost === undefined) return undefined;
  if (!isPlainObject(boost)) return refuse("boost", "must be an object");
  if (boost.match !== undefined && !isPlainObject(boost.match)) refuse("boost.match", "must be an object");
  if (boost.matchWeight !== undefined && !boost.match) refuse("boost.matchWeight", "needs boost.match");
  if (!boost.match && !boost.recency) refuse("boost", "needs match or recency");
  const out: ResolvedBoost = { now };
  if (boost.match) {
    const conditions = Object.entries(boost.match);
    if (conditions.length === 0 || conditions.length > BOOST_MATCH_KEYS)
      refuse("boost.match", `must hold 1 to ${BOOST_MATCH_KEYS} keys`);
    if (boost.match._access !== undefined) refuse("boost.match._access", "access lists cannot be boosted on");
    out.match = { conditions, weight: boost.matchWeight ?? DEFAULT_MATCH_WEIGHT };
  }
  if (boost.recency) {
    const { key, halfLifeDays, weight = DEFAULT_RECENCY_WEIGHT } = boost.recency;
    if (key === "_access") refuse("boost.recency.key", "access lists hold no date");
    out.recency = { key, halfLifeMs: halfLifeDays * DAY_MS, weight };
  }
  if ((out.match?.weight ?? 0) + (out.recency?.weight ?? 0) > 1 + 1e-9)
    refuse("boost", "matchWeight and recency.weight must add up to at most 1");
  return out;
}

function refuse(field: string, message: string): never {
  throw new RetrievalError("invalid_request", `${field}: ${message}`, { field, message });
}

const isPlainObject = (v: unknown): v is object => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the boost reads each source's indexing time (recency without a metadata key). */
export function needsIndexedAt(boost: ResolvedBoost | undefined): boolean {
  return boost?.recency !== undefined && boost.recency.key === undefined;
}

/** The factor in [1 − W, 1] a candidate's score is multiplied by. */
export function boostFactor(subject: BoostSubject, boost: ResolvedBoost): number {
  let factor = 1;
  if (boost.match) {
    const { conditions, weight } = boost.match;
    const met = conditions.filter(([k, v]) => holds(subject.metadata[k], v)).length;
    factor -= weight * (1 - met / conditions.length);
  }
  if (boost.recency) {
    const { key, halfLifeMs, weight } = boost.recency;
    const time = key === undefined ? subject.indexedAt : dateOf(subject.metadata[key]);
    const fresh = time === undefined ? 0 : 0.5 ** (Math.max(0, boost.now - time) / halfLifeMs);
    factor -= weight * (1 - fresh);
  }
  return Math.min(1, Math.max(0, factor));
}

/** A stored value meets a condition when it equals it, or is an array with an element that does. */
function holds(stored: unknown, wanted: BoostValue): boolean {
  return Array.isArray(stored) ? stored.includes(wanted) : stored === wanted;
}

/** An ISO 8601 date or date-time in milliseconds; undefined for anything else. */
export function dateOf(value: unknown): number | undefined {
  if (typeof value !== "string" || !ISO_DATE.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A result as boosting sees it. */
interface Scored {
  score: number;
  metadata: Record<string, unknown> & { sourceId: string };
}

/** Each candidate's factor, in order; `indexedAt` holds the sources' indexing times when the boost reads them. */
export function boostFactors(results: Scored[], boost: ResolvedBoost, indexedAt?: Map<string, number>): number[] {
  return results.map((r) =>
    boostFactor({ metadata: r.metadata, indexedAt: indexedAt?.get(r.metadata.sourceId) }, boost),
  );
}

/** Each result with its score times its factor, best first (ties keep their order), none under `minScore`. */
export function rescore<T extends Scored>(results: T[], factors: number[], minScore: number): T[] {
  return results
    .map((r, i) => ({ ...r, score: r.score * factors[i]! }))
    .filter((r) => r.score >= minScore)
    .sort((a, b) => b.score - a.score);
}

/**
 * A reranked list reordered by boost: the candidate at place i of n counts 1 − i/n (the
 * reranker's order, as diversity reads it), times its factor; ties keep the reranker's order.
 */
export function reorderRanked<T>(ranked: T[], factors: number[]): T[] {
  const n = ranked.length;
  return ranked
    .map((r, i) => ({ r, i, value: (1 - i / n) * factors[i]! }))
    .sort((a, b) => b.value - a.value || a.i - b.i)
    .map((x) => x.r);
}
