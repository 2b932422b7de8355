/** Stream helpers that know nothing of ragd. */
import { joinBytes } from "./bytes";

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
  // One part is the body as it came; more are copied once (tools/bytes.ts).
  return parts.length === 1 ? parts[0]! : joinBytes(parts);
}
