/**
 * The control file: `<dataDir>/server.json` (mode 0600), written by a running server
 * with its loopback address and a random token, so a command run on the same
 * machine by someone who can read the data directory (and so could copy it anyway)
 * can ask that server for a backup (docs/API.md, Backup and restore). A new token
 * is drawn at every start; the file goes when the server stops.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const CONTROL_FILE = "server.json";
export const CONTROL_HEADER = "x-ragd-control-token";

export interface ControlInfo {
  pid: number;
  url: string;
  token: string;
}

/** A fresh token for this process. */
export function newControlToken(): string {
  return randomBytes(32).toString("hex");
}

/** Writes the control file (temporary name, then rename, so a reader never sees half of it). */
export function writeControlFile(dataDir: string, info: ControlInfo): void {
  const tmp = join(dataDir, `.${CONTROL_FILE}.tmp`);
  writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
  renameSync(tmp, join(dataDir, CONTROL_FILE));
}

export function removeControlFile(dataDir: string): void {
  rmSync(join(dataDir, CONTROL_FILE), { force: true });
}

/** The running server's control info, or null when there is none to read. */
export function readControlFile(dataDir: string): ControlInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, CONTROL_FILE), "utf8"));
    return typeof info?.url === "string" && typeof info?.token === "string" ? info : null;
  } catch {
    return null;
  }
}

/** True when `given` is the token, compared in constant time. */
export function tokenMatches(token: string, given: string | null): boolean {
  if (!given) return false;
  const a = Buffer.from(token);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
