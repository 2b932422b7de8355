/**
 * A folder source's settings (docs/API.md, "Folder sources"): the folder, which of its
 * files to take, and the size limit per file. The folder must lie under one of the roots
 * an administrator allows (RAGD_FOLDER_ROOTS); with none, folder sources are refused.
 */
import { realpathSync, statSync } from "node:fs";
import { sep } from "node:path";
import type { Problem } from "./fetch-settings";

const MAX_PATTERNS = 50;
export const DEFAULT_MAX_FILE_MB = 50;

/** What a folder source syncs from, as stored beside it. */
export interface FolderSettings {
  /** The folder's real path (links resolved when the source was created). */
  path: string;
  include: string[];
  exclude: string[];
  maxFileMb: number;
}

/** The fields of a create body a folder source reads. */
export interface FolderInput {
  path?: unknown;
  include?: unknown;
  exclude?: unknown;
  maxFileMb?: unknown;
}

/** The real path of `p`, or null when it does not exist or cannot be resolved. */
function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** True when `path` (a real path) is `root` or lies under it. */
export function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The allowed root that holds the real path `path`, or null (roots are resolved now: one may be a link). */
export function rootHolding(path: string, roots: string[]): string | null {
  for (const r of roots) {
    const real = realOrNull(r);
    if (real && isUnder(path, real)) return real;
  }
  return null;
}

/** A list of glob patterns as given (include/exclude of a folder or bucket source); a problem when it is not one. */
export function patterns(v: unknown, field: string, problems: Problem[]): string[] {
  const ok =
    v === undefined ||
    (Array.isArray(v) &&
      v.length <= MAX_PATTERNS &&
      v.every((p) => typeof p === "string" && p.length > 0 && p.length <= 500));
  if (ok) return (v as string[] | undefined) ?? [];
  problems.push({ field, message: `must be an array of up to ${MAX_PATTERNS} glob patterns (1..500 chars)` });
  return [];
}

/**
 * Checks a folder source's fields against the allowed `roots`; the settings to store, or
 * the problems (each naming its field).
 * @example readFolderSettings({ path: "/srv/share/docs" }, ["/srv/share"])
 */
export function readFolderSettings(b: FolderInput, roots: string[]): FolderSettings | Problem[] {
  if (roots.length === 0)
    return [{ field: "path", message: "folder sources are off: the server allows no folder (RAGD_FOLDER_ROOTS)" }];
  if (typeof b.path !== "string" || !b.path.startsWith("/"))
    return [{ field: "path", message: "is required for a folder source: an absolute path on the server" }];
  const real = realOrNull(b.path);
  if (!real || !statSync(real).isDirectory())
    return [{ field: "path", message: "is not a folder the server can read" }];
  if (!rootHolding(real, roots))
    return [{ field: "path", message: "is not under any folder the server allows (RAGD_FOLDER_ROOTS)" }];
  const problems: Problem[] = [];
  const include = patterns(b.include, "include", problems);
  const exclude = patterns(b.exclude, "exclude", problems);
  const mb = maxFileMb(b.maxFileMb, problems);
  if (problems.length) return problems;
  return { path: real, include, exclude, maxFileMb: mb };
}

/** The size limit per file of a folder or bucket source, in MB (default DEFAULT_MAX_FILE_MB). */
export function maxFileMb(v: unknown, problems: Problem[]): number {
  const mb = v ?? DEFAULT_MAX_FILE_MB;
  if (typeof mb === "number" && Number.isInteger(mb) && mb >= 1 && mb <= 100_000) return mb;
  problems.push({ field: "maxFileMb", message: "must be a whole number of MB from 1 to 100000" });
  return DEFAULT_MAX_FILE_MB;
}
