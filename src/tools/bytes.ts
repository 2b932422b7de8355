/** Byte helpers that know nothing of ragd. */

/**
 * Copies `parts` one after the other into `into` (by default a new array of their total
 * length) and returns it: one copy, where `new Uint8Array(Buffer.concat(parts))` made two.
 * `into` must hold them all.
 */
export function joinBytes(
  parts: Uint8Array[],
  into: Uint8Array = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0)),
): Uint8Array {
  let at = 0;
  for (const p of parts) {
    into.set(p, at);
    at += p.byteLength;
  }
  return into;
}
