/**
 * How deep JSON text nests, found by a flat scan before anything parses or walks it:
 * walking a value nested 200,000 levels deep overflows the stack (docs/API.md, Limits).
 */

/** The deepest nesting ragd accepts in a JSON body, a JSON file or an api source. */
export const MAX_JSON_DEPTH = 1000;

/**
 * True when arrays and objects in `text` nest deeper than `limit`. Brackets inside
 * strings do not count. Linear and without recursion, so it is safe on any input.
 * @example nestsDeeperThan("[[1]]", 1) // true
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  // Each level needs its own opening bracket, so short text cannot be too deep.
  if (text.length <= limit) return false;
  // Nor can text with no more opening brackets than that, found by a native search: the
  // common body (a batch of documents) has a few hundred in hundreds of kilobytes.
  if (countsAtMost(text, "[", "{", limit)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** True when `a` and `b` occur at most `limit` times in all in `text`. */
function countsAtMost(text: string, a: string, b: string, limit: number): boolean {
  let n = 0;
  for (const c of [a, b])
    for (let i = text.indexOf(c); i !== -1; i = text.indexOf(c, i + 1)) if (++n > limit) return false;
  return true;
}

/** The sentence for a person, the same in every place that refuses deep JSON. */
export const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH.toLocaleString("en-US")} levels`;
