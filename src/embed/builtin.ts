/**
 * The built-in embedder: no model, no network, no dependencies. Feature hashing of
 * words, word pairs and character n-grams into 384 signed dimensions. It is a lexical
 * embedding — it matches shared words (and their spelling variants), not meaning — and
 * it stands in for IDF, which it cannot know, with cheap signs of rarity: stopwords are
 * skipped, longer words weigh more, and codes that mix letters and digits weigh most.
 * The work is in builtin-fast.ts; test/support/builtin-reference.ts is the embedder as
 * first written, which it matches bit for bit.
 */
import { addNgrams, embedFast } from "./builtin-fast";
import { BUILTIN_DIMENSIONS, FNV_PRIME, SEED_WORD, addHashed, mix, normalize } from "./builtin-features";
import type { Embedder } from "./types";

export { BUILTIN_DIMENSIONS, normalizeText } from "./builtin-features";

/**
 * Embeds one text into a unit-length 384-dimension vector; the same text always gives
 * the same vector. Text without any letter or digit is embedded by its characters, and
 * only whitespace-only text gives the zero vector.
 *
 * @example cosine(embedBuiltin("XK-4471 spec"), embedBuiltin("the xk-4471")) // high
 */
export function embedBuiltin(text: string): Float32Array<ArrayBuffer> {
  return embedFast(text) ?? embedSymbols(text);
}

/** Text without words: the n-grams of its first 1,000 non-space characters, and each of them. */
function embedSymbols(text: string): Float32Array<ArrayBuffer> {
  const vec = new Float32Array(BUILTIN_DIMENSIONS);
  const symbols = text.replace(/\s+/g, "").slice(0, 1000);
  // " symbols ", the spaces marking its edges as they do a word's.
  const codes = new Uint16Array(symbols.length + 2);
  codes[0] = codes[symbols.length + 1] = 32;
  for (let i = 0; i < symbols.length; i++) codes[i + 1] = symbols.charCodeAt(i);
  addNgrams(vec, codes, 1, symbols.length, 1);
  for (const ch of symbols) {
    let h = SEED_WORD;
    for (let i = 0; i < ch.length; i++) h = Math.imul(h ^ ch.charCodeAt(i), FNV_PRIME);
    addHashed(vec, mix(h), 1);
  }
  return normalize(vec);
}

/** The built-in embedder as an Embedder: synchronous work, yielding between batches. */
/**
 * Embeds `texts` in order with an in-process model, 256 at a time: between batches it
 * checks `signal` and lets the event loop breathe.
 */
export async function embedInTurns(
  texts: string[],
  one: (text: string) => Float32Array<ArrayBuffer>,
  signal?: AbortSignal,
): Promise<Float32Array<ArrayBuffer>[]> {
  const out: Float32Array<ArrayBuffer>[] = [];
  for (let i = 0; i < texts.length; i++) {
    if (i % 256 === 0) {
      signal?.throwIfAborted();
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    out.push(one(texts[i]!));
  }
  return out;
}

export class BuiltinEmbedder implements Embedder {
  readonly name = "builtin";

  /** Embeds `texts` in order; checks `signal` every 256 texts. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array<ArrayBuffer>[]> {
    return embedInTurns(texts, embedBuiltin, signal);
  }

  /** Always 384. */
  async dimensions(): Promise<number> {
    return BUILTIN_DIMENSIONS;
  }
}
