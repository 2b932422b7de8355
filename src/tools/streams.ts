/** Stream helpers that know nothing of ragd. */

/**
 * Reads a byte stream to the end, calling `tooLarge` (which must throw) as soon
 * as more than `limit` bytes have arrived; the stream is cancelled first.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
  tooLarge: () => never,
): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      tooLarge();
    }
    parts.push(value);
  }
  return joined(parts, total);
}

/**
 * The parts as one array, copied once (a request body arrives in pieces of 64 KiB or so;
 * `new Uint8Array(Buffer.concat(parts))` copied it twice, into fresh memory each time).
 */
function joined(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
