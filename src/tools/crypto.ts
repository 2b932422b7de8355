/** Small cryptographic helpers that know nothing of ragd. */
import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Hex SHA-256 of a string (of its UTF-8 bytes). Bun's one-shot hash: every document of
 * a batch request is hashed, and a hasher object per call took twice as long.
 */
export const sha256 = (s: string): string => Bun.SHA256.hash(s, "hex") as string;

/** A URL-safe random token of `bytes` random bytes. */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString("base64url");

/** `length` base62 characters from a CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}
