/**
 * The language detector's n-gram tables (`eld/extrasmall`: 49,553 n-grams, each scoring
 * one to a few of 60 languages) in a compact form, read an n-gram at a time. The
 * package's own form is an object literal of 49,553 objects, built whole in every thread
 * that detects (0.17 s of CPU and 27 MB of heap in each ingestion worker, parsed as JSON);
 * a document's detection reads about 70 of them. The executable carries the tables as
 * two strings (scripts/detector-tables.ts); from source they are packed when first read.
 * eld-detect.ts reads them in place (NgramTable): every n-gram reads back with the
 * package's languages and scores (test/eld-tables.test.ts).
 */

/** eld's tables: n-gram → language number → score. */
export type Ngrams = Record<string, Record<number, number>>;

/** The separator of the packed n-grams: their characters are 32–255 (eld's byte dictionary). */
const SEPARATOR = 10;
/** Added to each packed number so that none is a control character (they are 1–207). */
const BASE = 48;
/** Hash slots: a power of two, over twice the n-grams, so that a look-up probes one or two. */
const SLOTS = 1 << 17;

/**
 * The tables as two strings: the n-grams joined by line breaks, and for each in the same
 * order its number of languages followed by each language's number and score, one
 * character each.
 */
export function packNgrams(ngrams: Ngrams): { keys: string; packed: string } {
  const keys = Object.keys(ngrams);
  if (keys.length * 2 > SLOTS) throw new Error(`${keys.length} n-grams: too many for ${SLOTS} slots`);
  const out: string[] = [];
  for (const key of keys) {
    if (key.includes(String.fromCharCode(SEPARATOR)))
      throw new Error(`n-gram ${JSON.stringify(key)} holds the separator`);
    const entry = Object.entries(ngrams[key]!).map(([lang, score]) => [Number(lang), score] as const);
    out.push(packedNumber(entry.length));
    for (const [lang, score] of entry) out.push(packedNumber(lang), packedNumber(score));
  }
  return { keys: keys.join(String.fromCharCode(SEPARATOR)), packed: out.join("") };
}

function packedNumber(n: number): string {
  if (!(Number.isInteger(n) && n >= 0 && n + BASE < 256)) throw new Error(`${n} does not pack into one character`);
  return String.fromCharCode(n + BASE);
}

/** FNV-1a over `text`'s characters from `start` to `end`. */
function hash(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h & (SLOTS - 1);
}

/**
 * The tables packed by packNgrams, read in place: an n-gram's slot is found by its hash,
 * its languages' scores read from the packed string. Nothing is made up front but two
 * arrays of hash slots: no string and no object per n-gram.
 */
export class NgramTable {
  private readonly keyAt = new Int32Array(SLOTS).fill(-1);
  private readonly scoresAt = new Int32Array(SLOTS);

  constructor(
    private readonly keys: string,
    private readonly packed: string,
  ) {
    for (let start = 0, at = 0; start < keys.length; ) {
      let end = keys.indexOf(String.fromCharCode(SEPARATOR), start);
      if (end < 0) end = keys.length;
      let slot = hash(keys, start, end);
      while (this.keyAt[slot] !== -1) slot = (slot + 1) & (SLOTS - 1);
      this.keyAt[slot] = start;
      this.scoresAt[slot] = at;
      at += 1 + 2 * (packed.charCodeAt(at) - BASE);
      start = end + 1;
    }
  }

  /** Adds `base` plus each of the n-gram's language scores to `scores` (by language number); none for an unknown n-gram. */
  addScores(key: string, scores: Float64Array, base: number): void {
    const slot = this.slotOf(key);
    if (slot < 0) return;
    const at = this.scoresAt[slot]!;
    const end = at + 1 + 2 * (this.packed.charCodeAt(at) - BASE);
    for (let i = at + 1; i < end; i += 2)
      scores[this.packed.charCodeAt(i) - BASE]! += this.packed.charCodeAt(i + 1) - BASE + base;
  }

  /** The n-gram's scores by language number, as the package's tables hold them; undefined when it has none. */
  entry(key: string): Record<number, number> | undefined {
    const slot = this.slotOf(key);
    if (slot < 0) return undefined;
    const at = this.scoresAt[slot]!;
    const entry: Record<number, number> = {};
    const end = at + 1 + 2 * (this.packed.charCodeAt(at) - BASE);
    for (let i = at + 1; i < end; i += 2)
      entry[this.packed.charCodeAt(i) - BASE] = this.packed.charCodeAt(i + 1) - BASE;
    return entry;
  }

  private slotOf(key: string): number {
    const { keys, keyAt } = this;
    for (let slot = hash(key, 0, key.length); keyAt[slot] !== -1; slot = (slot + 1) & (SLOTS - 1)) {
      const start = keyAt[slot]!;
      const after = start + key.length;
      if (keys.startsWith(key, start) && (after === keys.length || keys.charCodeAt(after) === SEPARATOR)) return slot;
    }
    return -1;
  }
}
