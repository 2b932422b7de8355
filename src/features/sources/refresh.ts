/**
 * The refresh and crawl settings of a url/api source as the sources API takes them
 * (docs/API.md, "Refresh and crawl"): checked on create and PATCH, stored beside the
 * source, and the "fetch again now" action.
 */
import { type FetchSettings, type Problem, readFetchSettings } from "../../core/fetch-settings";
import type { Db } from "../../db/client";
import { findSourceFetch, saveSourceFetch } from "../../db/repo/source-fetches";
import type { DocumentRow } from "../../db/schema";
import { AppError } from "../../http/errors";
import { fetchRowOf } from "../../ingest/sync/refresh";

export type { FetchSettings };
export { fetchRowOf };

export interface FetchSettingsInput {
  refreshEvery?: unknown;
  crawl?: unknown;
}

function refuse(problems: Problem[]): never {
  throw new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems.slice(0, 20));
}

/** Checks the refresh and crawl fields for a source of `type`; 400 naming the problem. */
export function checkFetchSettings(type: DocumentRow["type"], b: FetchSettingsInput): FetchSettings {
  const { settings, problems } = readFetchSettings(type, b);
  if (problems.length) refuse(problems);
  return settings;
}

/**
 * Changes a stored source's settings (PATCH); a crawled page takes them from its crawl source.
 * Run it inside a transaction, with `doc` as that transaction read it.
 */
export async function patchFetchSettings(tx: Db, doc: DocumentRow, b: FetchSettingsInput): Promise<void> {
  if (b.refreshEvery === undefined && b.crawl === undefined) return;
  const settings = checkFetchSettings(doc.type, b);
  const state = await findSourceFetch(tx, doc.id);
  if (state?.crawlSourceId) throw crawledPage(state.crawlSourceId);
  if (settings.crawl && doc.chunkCount > 0 && !state?.crawl)
    refuse([{ field: "crawl", message: "cannot turn an indexed single-page source into a crawl; add a new source" }]);
  await saveSourceFetch(tx, doc.id, fetchRowOf(settings, Date.now()));
}

/** 409 for an action a crawled page cannot take on its own. */
export function crawledPage(crawlSourceId: string): AppError {
  return new AppError(
    "conflict",
    `this page belongs to the crawl source ${crawlSourceId}; change or refetch that source instead`,
  );
}
