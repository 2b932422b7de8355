/** What a Git source's sync job is given and what it reports (docs/API.md, "Git sources"). */
import type { GitSettings } from "../../core/git-settings";

export interface GitJob {
  settings: GitSettings;
  /** The clone URL, with the source's credentials put back (only the fetcher reads them). */
  url: string;
  /** The source's own clone: `<data>/git/<source id>`. */
  dir: string;
  /** The commit the last sync took; null before the first. */
  lastCommit: string | null;
  /** The blob id of each file the source holds, by path: the base when `lastCommit` is gone. */
  known: Record<string, string>;
  fetch: { allow: string[]; deny: string[] };
  /** For the whole sync: fetch and diff. */
  budgetMs: number;
  /** A re-index rebuilds the files by tasks of their own: nothing is fetched. */
  skip?: boolean;
}

/** A file added or changed at the new head: its blob, read for its size already. */
export interface GitFile {
  path: string;
  oid: string;
  size: number;
}

/** What a sync found between the last commit taken and the branch's head. */
export interface GitScan {
  commit: string;
  /** The head commit's author date (ISO 8601). */
  authorDate: string;
  /** Files new or with another blob at the head (taken by include/exclude). */
  files: GitFile[];
  /** Paths no longer at the head (or no longer taken). */
  gone: string[];
  /** Files not taken, with why: what was indexed of them stays. */
  failures: { path: string; reason: string }[];
  /** How the changes were found: the two commits' trees, or the head's against the stored blob ids. */
  base: "commit" | "stored";
}

/** A job's file of a Git source: its blob in the source's clone, fetched again when this machine lacks it. */
export interface GitFileRef {
  dir: string;
  oid: string;
  path: string;
  maxBytes: number;
  /** What a fetch of the branch may download (the source's maxTotalMb). */
  maxFetchBytes: number;
  url: string;
  branch: string | null;
  fetch: { allow: string[]; deny: string[] };
}

export type GitEvent = { type: "git-synced"; jobId: string; scan: GitScan | null };

/** A sync or a file read that cannot go on: its message is the source's error. */
export class GitError extends Error {}
