/**
 * Maximal marginal relevance (docs/API.md, Query: `diversity`): re-ranks
 * candidates so that five results are not five overlapping chunks of one page.
 * Each pick maximises
 *
 *   (1 − d) · score − d · max similarity to the chunks already picked
 *
 * with d = `diversity`. Similarity is the cosine of the two chunks' word counts:
 * it needs no stored vectors, works the same in every mode, and two overlapping
 * chunks of one text, which share most of their words, come out near 1.
 */

/** A candidate: its text and its relevance score in [0, 1]. */
export interface Diversifiable {
  content: string;
  score: number;
}

/**
 * Picks `topK` of `candidates` (best first) by MMR; d = 0 keeps the order as it is.
 * `relevance` replaces the score, e.g. by rank once a reranker has ordered them.
 */
export function diversify<T extends Diversifiable>(
  candidates: T[],
  topK: number,
  d: number,
  relevance: (c: T, i: number, n: number) => number = (c) => c.score,
): T[] {
  if (d <= 0 || candidates.length <= 1) return candidates.slice(0, topK);
  const bags = candidates.map((c) => wordBag(c.content));
  const rel = candidates.map((c, i) => relevance(c, i, candidates.length));
  const closest = candidates.map(() => 0); // max similarity to the picked ones
  const left = new Set(candidates.keys());
  const picked: T[] = [];
  while (picked.length < topK && left.size > 0) {
    let best = -1;
    let bestValue = -Infinity;
    for (const i of left) {
      const value = (1 - d) * rel[i]! - d * closest[i]!;
      if (value > bestValue) [best, bestValue] = [i, value];
    }
    left.delete(best);
    picked.push(candidates[best]!);
    for (const i of left) closest[i] = Math.max(closest[i]!, cosine(bags[i]!, bags[best]!));
  }
  return picked;
}

interface Bag {
  counts: Map<string, number>;
  norm: number;
}

function wordBag(text: string): Bag {
  const counts = new Map<string, number>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  let sq = 0;
  for (const n of counts.values()) sq += n * n;
  return { counts, norm: Math.sqrt(sq) };
}

function cosine(a: Bag, b: Bag): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  const [small, large] = a.counts.size <= b.counts.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [w, n] of small.counts) dot += n * (large.counts.get(w) ?? 0);
  return dot / (a.norm * b.norm);
}
