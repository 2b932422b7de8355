/** Small cryptographic helpers that know nothing of ragd. */
import { createHash, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Hex SHA-256 of a string. */
export const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

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
