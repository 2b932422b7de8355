/**
 * A Git source's settings (docs/API.md, "Git sources"): the branch, which of its files to
 * take, and the size limits. The clone URL is the source's `url` (checked like a url
 * source's); credentials are kept apart from it and never shown.
 */
import type { Problem } from "./fetch-settings";
import { DEFAULT_MAX_FILE_MB } from "./folder-settings";

export const DEFAULT_MAX_TOTAL_MB = 1024;
const BRANCH = /^(?!\/|.*\/\/|.*\.\.|.*\/$|.*\.lock$)[A-Za-z0-9._/-]{1,200}$/;

/** What a Git source syncs, as stored beside it. */
export interface GitSettings {
  /** The branch followed; null: the repository's default branch (its HEAD). */
  branch: string | null;
  include: string[];
  exclude: string[];
  maxFileMb: number;
  /** The most a sync may download, in MB: a larger fetch fails the sync and deletes nothing. */
  maxTotalMb: number;
}

/** The fields of a create body a Git source reads. */
export interface GitInput {
  branch?: unknown;
  include?: unknown;
  exclude?: unknown;
  maxFileMb?: unknown;
  maxTotalMb?: unknown;
  username?: unknown;
  password?: unknown;
  token?: unknown;
}

const MAX_PATTERNS = 50;

/** Globs on a file's path in the repository (include/exclude). */
function globPatterns(v: unknown, field: string, problems: Problem[]): string[] {
  if (v === undefined) return [];
  const ok =
    Array.isArray(v) &&
    v.length <= MAX_PATTERNS &&
    v.every((p) => typeof p === "string" && p.length > 0 && p.length <= 500);
  if (ok) return v as string[];
  problems.push({ field, message: `must be an array of up to ${MAX_PATTERNS} glob patterns (1..500 chars)` });
  return [];
}

const wholeMb = (v: unknown, field: string, fallback: number, problems: Problem[]): number => {
  const mb = v ?? fallback;
  if (typeof mb === "number" && Number.isInteger(mb) && mb >= 1 && mb <= 100_000) return mb;
  problems.push({ field, message: "must be a whole number of MB from 1 to 100000" });
  return fallback;
};

/**
 * Checks a Git source's fields; the settings to store, or the problems (each naming its field).
 * @example readGitSettings({ branch: "main", include: ["docs/**"] })
 */
export function readGitSettings(b: GitInput): GitSettings | Problem[] {
  const problems: Problem[] = [];
  if (b.branch !== undefined && (typeof b.branch !== "string" || !BRANCH.test(b.branch)))
    problems.push({ field: "branch", message: "must be a branch name (letters, digits, . _ - /; up to 200)" });
  const include = globPatterns(b.include, "include", problems);
  const exclude = globPatterns(b.exclude, "exclude", problems);
  const maxFileMb = wholeMb(b.maxFileMb, "maxFileMb", DEFAULT_MAX_FILE_MB, problems);
  const maxTotalMb = wholeMb(b.maxTotalMb, "maxTotalMb", DEFAULT_MAX_TOTAL_MB, problems);
  if (problems.length) return problems;
  const branch = typeof b.branch === "string" ? b.branch.replace(/^refs\/heads\//, "") : null;
  return { branch, include, exclude, maxFileMb, maxTotalMb };
}

/**
 * The credentials a Git source is fetched with, as `user:password` percent-encoded (the
 * form url sources keep apart, tools/url-credentials.ts); null: none. A token is sent as
 * the password of HTTP Basic, under `username` or "token".
 */
export function readGitCredentials(b: GitInput): string | Problem[] {
  const text = (v: unknown) => v === undefined || (typeof v === "string" && v.length > 0 && v.length <= 1000);
  for (const field of ["username", "password", "token"] as const)
    if (!text(b[field])) return [{ field, message: "must be a string of 1..1000 characters" }];
  if (b.token !== undefined && b.password !== undefined)
    return [{ field: "token", message: "give a password or a token, not both" }];
  const secret = (b.token ?? b.password) as string | undefined;
  if (secret === undefined && b.username === undefined) return "";
  const user = (b.username as string | undefined) ?? (b.token !== undefined ? "token" : "");
  return secret === undefined ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(secret)}`;
}
