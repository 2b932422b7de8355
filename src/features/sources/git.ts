/**
 * The settings of a Git source as the sources API takes them (docs/API.md, "Git
 * sources"): the clone URL checked as a url source's, the branch and file rules, and the
 * credentials, kept apart from the URL and never shown.
 */
import type { Problem } from "../../core/fetch-settings";
import { type GitInput, type GitSettings, readGitCredentials, readGitSettings } from "../../core/git-settings";
import { AppError } from "../../http/errors";
import { splitCredentials } from "../../tools/url-credentials";

function refuse(problems: Problem[]): never {
  throw new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems.slice(0, 20));
}

/** A Git source's settings, its URL without credentials and the credentials to keep apart; 400 naming the problem. */
export function checkGitSettings(b: GitInput & { url?: string }): {
  settings: GitSettings;
  url: string;
  credentials: string | null;
} {
  const settings = readGitSettings(b);
  if (Array.isArray(settings)) refuse(settings);
  const given = readGitCredentials(b);
  if (Array.isArray(given)) refuse(given);
  const split = splitCredentials(b.url!);
  if (given && split.credentials)
    refuse([{ field: "url", message: "carries credentials: give them in the URL or apart" }]);
  return { settings, url: split.url, credentials: given || split.credentials };
}

const GIT_ONLY = ["branch", "maxTotalMb", "username", "password", "token"] as const;

/** 400 for the Git fields on a source of another type, and for a folder's path on a Git source. */
export function refuseGitFields(b: GitInput & { type: string; path?: unknown }): void {
  const wrong = b.type === "git" ? (b.path !== undefined ? "path" : null) : GIT_ONLY.find((f) => b[f] !== undefined);
  if (!wrong) return;
  const message = b.type === "git" ? "is for folder sources" : "is for git sources";
  throw new AppError("invalid_request", `${wrong}: ${message}`, [{ field: wrong, message }]);
}
