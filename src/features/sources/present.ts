/** Turns a stored document row into the public Source shape. */
import { parseStoredMetadata } from "../../core/metadata";
import { CONTENT_PREVIEW_CHARS } from "../../db/repo/documents";
import type { Db } from "../../db/client";
import { sourceFetchesOf } from "../../db/repo/source-fetches";
import type { DocumentRow, SourceFetch } from "../../db/schema";
import type { Source } from "./schemas";

/**
 * `preview` is the start of a text source's content (its first CONTENT_PREVIEW_CHARS characters);
 * `fetch` the refresh and crawl state of a url/api source (docs/API.md, "Refresh and crawl"),
 * a synced parent's settings and last sync, or a synced file's link to its parent.
 */
export function presentSource(d: DocumentRow & { preview: string | null }, fetch?: SourceFetch): Source {
  const s: Source = {
    id: d.id,
    pipelineId: d.collectionId,
    type: d.type,
    name: d.name,
    status: d.status,
    error: d.error,
    chunkCount: d.chunkCount,
    progress:
      d.progressUnit === "pages"
        ? { done: d.progressDone, total: d.progressTotal, unit: "pages" as const }
        : { done: d.progressDone, total: d.progressTotal },
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    indexedAt: d.indexedAt,
    metadata: parseStoredMetadata(d.metadata),
    externalId: d.externalId,
  };
  if (d.contentLength !== null) {
    s.content = (d.preview ?? "").slice(0, CONTENT_PREVIEW_CHARS);
    s.contentLength = d.contentLength;
  }
  if (d.url !== null) s.url = d.url;
  if (d.fileName !== null) s.fileName = d.fileName;
  if (d.fileSize !== null) s.fileSize = d.fileSize;
  if (d.ocr) s.ocr = JSON.parse(d.ocr) as NonNullable<Source["ocr"]>;
  if (d.type === "url" || d.type === "api") Object.assign(s, fetchFields(fetch));
  if (d.type === "folder") Object.assign(s, folderFields(fetch));
  if (d.type === "git") Object.assign(s, gitFields(fetch));
  if (d.type === "s3") Object.assign(s, bucketFields(fetch));
  if (d.type === "file" && fetch?.crawlSourceId) s.parentSourceId = fetch.crawlSourceId;
  return s;
}

/** A bucket source's settings (never its keys), schedule and last sync (docs/API.md, "Bucket sources"). */
function bucketFields(f: SourceFetch | undefined): Partial<Source> {
  const { crawl, crawlSourceId, crawlReport, ...times } = fetchFields(f);
  const out: Partial<Source> = { ...times, syncReport: f?.crawlReport ? JSON.parse(f.crawlReport) : null };
  if (f?.crawl) out.s3 = JSON.parse(f.crawl);
  return out;
}

/** A Git source's settings (never its credentials), schedule and last sync (docs/API.md, "Git sources"). */
function gitFields(f: SourceFetch | undefined): Partial<Source> {
  const { crawl, crawlSourceId, crawlReport, ...times } = fetchFields(f);
  const out: Partial<Source> = { ...times, syncReport: f?.crawlReport ? JSON.parse(f.crawlReport) : null };
  if (f?.crawl) out.git = JSON.parse(f.crawl);
  return out;
}

/** A folder source's settings, schedule and last sync (docs/API.md, "Folder sources"). */
function folderFields(f: SourceFetch | undefined): Partial<Source> {
  const { crawl, crawlSourceId, crawlReport, ...times } = fetchFields(f);
  const out: Partial<Source> = { ...times, syncReport: f?.crawlReport ? JSON.parse(f.crawlReport) : null };
  if (f?.crawl) out.folder = JSON.parse(f.crawl);
  return out;
}

/** The refresh and crawl fields of a url/api source; a source from before they existed has none set. */
function fetchFields(f: SourceFetch | undefined): Partial<Source> {
  const out: Partial<Source> = {
    refreshEvery: f?.refreshEvery ?? null,
    nextCheckAt: f?.nextCheckAt ?? null,
    lastCheckedAt: f?.lastCheckedAt ?? null,
    lastChangedAt: f?.lastChangedAt ?? null,
  };
  if (f?.crawl) {
    out.crawl = JSON.parse(f.crawl);
    out.crawlReport = f.crawlReport ? JSON.parse(f.crawlReport) : null;
  }
  if (f?.crawlSourceId) out.crawlSourceId = f.crawlSourceId;
  return out;
}

/** The types whose rows have a fetch state: a schedule, a crawl, a synced parent's settings. */
const WITH_FETCH_STATE = new Set<string>(["url", "api", "folder", "git", "s3"]);

/** Whether a row may have a fetch state to show; a file without a stored file may be a synced parent's. */
export function mayHaveFetchState(r: Pick<DocumentRow, "type" | "filePath">): boolean {
  return WITH_FETCH_STATE.has(r.type) || (r.type === "file" && !r.filePath);
}

/** Many sources at once, their fetch state read in one query per 500. */
export async function presentSources(db: Db, rows: (DocumentRow & { preview: string | null })[]): Promise<Source[]> {
  const fetched = rows.filter(mayHaveFetchState).map((r) => r.id);
  const states = fetched.length ? await sourceFetchesOf(db, fetched) : new Map<string, SourceFetch>();
  return rows.map((r) => presentSource(r, states.get(r.id)));
}
