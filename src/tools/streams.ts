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
  return new Uint8Array(Buffer.concat(parts));
}
