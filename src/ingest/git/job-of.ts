/**
 * The Git parts of a claimed task's job (tasks/job-for.ts): a Git source's sync, with the last
 * commit it took and the blob ids it holds; a Git source's file, with where its blob is.
 */
import type { GitSettings } from "../../core/git-settings";
import type { Db } from "../../db/client";
import { folderFilesOf } from "../../db/repo/folder-files";
import type { DocumentRow, SourceFetch } from "../../db/schema";
import { joinCredentials } from "../../tools/url-credentials";
import type { LinkedParent } from "../job-types";
import { cloneDir } from "./repo";
import type { GitFileRef, GitJob } from "./types";

export interface GitJobConfig {
  dataDir: string;
  fetchAllow: string[];
  fetchDeny: string[];
  crawlBudgetMs: number;
}

const urlOf = (doc: DocumentRow) => joinCredentials(doc.url ?? "", doc.urlCredentials);

/** A Git source's sync job; `settled` false (a re-index) fetches nothing. */
export async function gitJob(
  db: Db,
  doc: DocumentRow,
  state: SourceFetch | undefined,
  settled: boolean,
  config: GitJobConfig,
): Promise<GitJob | null> {
  if (!state?.crawl || !doc.url) return null;
  const settings = JSON.parse(state.crawl) as GitSettings;
  const fetch = { allow: config.fetchAllow, deny: config.fetchDeny };
  const job = {
    settings,
    url: urlOf(doc),
    dir: cloneDir(config.dataDir, doc.id),
    fetch,
    budgetMs: config.crawlBudgetMs,
  };
  if (!settled) return { ...job, lastCommit: null, known: {}, skip: true };
  const last = state.crawlReport ? (JSON.parse(state.crawlReport) as { commit?: unknown }).commit : null;
  const known: Record<string, string> = {};
  for (const f of await folderFilesOf(db, doc.id)) if (f.contentHash) known[f.path] = f.contentHash;
  return { ...job, lastCommit: typeof last === "string" ? last : null, known };
}

/** Where a Git source's file is read, `parent` its Git source as read; null when it cannot be. */
export function gitFileOf(doc: DocumentRow, parent: LinkedParent, config: GitJobConfig): GitFileRef | null {
  if (!doc.externalId || !doc.contentHash || !parent.doc.url || !parent.state?.crawl) return null;
  const settings = JSON.parse(parent.state.crawl) as GitSettings;
  return {
    dir: cloneDir(config.dataDir, parent.doc.id),
    oid: doc.contentHash,
    path: doc.externalId,
    maxBytes: settings.maxFileMb * 1024 * 1024,
    maxFetchBytes: settings.maxTotalMb * 1024 * 1024,
    url: urlOf(parent.doc),
    branch: settings.branch,
    fetch: { allow: config.fetchAllow, deny: config.fetchDeny },
  };
}
