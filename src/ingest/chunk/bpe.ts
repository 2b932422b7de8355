/**
 * Exact cl100k_base token counting. js-tiktoken's encoder merges byte pairs in
 * quadratic time with a string join per step, which takes seconds on one long word
 * (a DNA sequence, a Thai paragraph, a base64 blob). This counter reads the same rank
 * table that ships in js-tiktoken and runs the same merge order — lowest rank first,
 * leftmost on ties — with a heap, so it returns exactly encode(text).length.
 */
import cl100k from "js-tiktoken/ranks/cl100k_base";

// Ranks keyed by the token's bytes as a binary (latin1) string; built on first use.
let ranks: Map<string, number> | undefined;
const PIECE = new RegExp(cl100k.pat_str, "gu");
const SHIFT = 2 ** 32;
const utf8 = new TextEncoder();

// Words repeat, so short pieces are worth remembering; cleared when it grows large.
const cache = new Map<string, number>();
const CACHE_LIMIT = 200_000;

function loadRanks(): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of cl100k.bpe_ranks.split("\n")) {
    const [, offset, ...tokens] = line.split(" ");
    const base = Number.parseInt(offset, 10);
    tokens.forEach((t, i) => {
      map.set(atob(t), base + i);
    });
  }
  return map;
}

/** The UTF-8 bytes of `s` as a binary string (one char per byte). */
function toBinary(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for the whole ASCII range
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  const bytes = utf8.encode(s);
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

/** How many tokens byte-pair merging leaves of one pre-token piece (as binary). */
function mergeCount(b: string, table: Map<string, number>): number {
  const n = b.length;
  if (n <= 1 || table.has(b)) return Math.min(n, 1);
  const next = new Int32Array(n + 1).map((_, i) => i + 1);
  const prev = new Int32Array(n).map((_, i) => i - 1);
  const pairRank = new Int32Array(n).fill(-1);
  const heap = new MinHeap();
  const update = (a: number) => {
    const c = next[a] < n ? next[next[a]] : -1;
    const r = c < 0 ? undefined : table.get(b.slice(a, c));
    pairRank[a] = r ?? -1;
    if (r !== undefined) heap.push(r * SHIFT + a);
  };
  for (let a = 0; a < n - 1; a++) update(a);
  let parts = n;
  while (heap.size > 0) {
    const key = heap.pop();
    const r = Math.floor(key / SHIFT);
    const a = key - r * SHIFT;
    // Stale entry: the pair at a changed since (a rank names one byte string).
    if (pairRank[a] !== r) continue;
    const gone = next[a];
    next[a] = next[gone];
    if (next[a] < n) prev[next[a]] = a;
    pairRank[gone] = -1;
    parts--;
    update(a);
    if (prev[a] >= 0) update(prev[a]);
  }
  return parts;
}

/** Counts the tokens of one pre-token piece. */
function countPiece(piece: string, table: Map<string, number>): number {
  const cached = cache.get(piece);
  if (cached !== undefined) return cached;
  const count = mergeCount(toBinary(piece), table);
  if (piece.length <= 64) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(piece, count);
  }
  return count;
}

/**
 * Counts cl100k_base tokens exactly as js-tiktoken's encode(text, [], []).length does;
 * special-token text such as "<|endoftext|>" counts as ordinary text.
 */
export function countTokens(text: string): number {
  ranks ??= loadRanks();
  let count = 0;
  PIECE.lastIndex = 0;
  for (let m = PIECE.exec(text); m; m = PIECE.exec(text)) count += countPiece(m[0], ranks);
  return count;
}

/** A binary min-heap of numbers. */
class MinHeap {
  private items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(x: number): void {
    const h = this.items;
    let i = h.push(x) - 1;
    while (i > 0 && h[(i - 1) >> 1] > x) {
      h[i] = h[(i - 1) >> 1];
      i = (i - 1) >> 1;
    }
    h[i] = x;
  }
  pop(): number {
    const h = this.items;
    const top = h[0];
    const last = h.pop()!;
    if (h.length === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= h.length) break;
      if (c + 1 < h.length && h[c + 1] < h[c]) c++;
      if (h[c] >= last) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = last;
    return top;
  }
}
