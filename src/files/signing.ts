/**
 * Signed upload URLs. The signature is an HMAC-SHA256, keyed by data/secret.key,
 * over the method, the path, the source id, the expiry and the declared size, so
 * none of them can be changed without the server noticing.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const UPLOAD_TTL_MS = 15 * 60_000;

/** Reads data/secret.key, creating it (32 random bytes, mode 0600) on first start. */
export function loadSecret(dataDir: string): Buffer {
  const path = join(dataDir, "secret.key");
  if (!existsSync(path)) {
    try {
      writeFileSync(path, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  chmodSync(path, 0o600);
  return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
}

export interface UploadGrant {
  sourceId: string;
  expires: number;
  size: number;
}

export const uploadPath = (sourceId: string) => `/uploads/${sourceId}`;

function mac(secret: Buffer, g: UploadGrant): string {
  const material = ["PUT", uploadPath(g.sourceId), g.sourceId, String(g.expires), String(g.size)].join("\n");
  return createHmac("sha256", secret).update(material).digest("base64url");
}

/** The full upload URL for a source. */
export function signUploadUrl(secret: Buffer, baseUrl: string, g: UploadGrant): string {
  const q = new URLSearchParams({ expires: String(g.expires), size: String(g.size), sig: mac(secret, g) });
  return `${baseUrl}${uploadPath(g.sourceId)}?${q}`;
}

/** Why a presented signature is not valid, or null when it is. */
export function checkSignature(
  secret: Buffer,
  sourceId: string,
  q: { expires?: string; size?: string; sig?: string },
  now = Date.now(),
): string | null {
  const expires = Number(q.expires);
  const size = Number(q.size);
  if (!q.sig || !Number.isSafeInteger(expires) || !Number.isSafeInteger(size)) return "the upload URL is incomplete";
  const want = Buffer.from(mac(secret, { sourceId, expires, size }));
  const got = Buffer.from(q.sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return "the upload URL's signature is not valid";
  if (now > expires) return "the upload URL has expired; create the file source again";
  return null;
}
