/**
 * Listing a pipeline's sources (docs/API.md, "GET /api/rag/pipelines/{id}/sources"):
 * a page with search and a status filter, or, when none of those parameters is
 * given, the whole list as a bare array, as before paging existed.
 */
import { t } from "elysia";
import type { Db } from "../../db/client";
import type { Collection } from "../../db/schema";
import {
  countDocumentsByStatus,
  countDocumentsMatching,
  DOCUMENT_STATUSES,
  type DocumentStatus,
  findDocumentPage,
} from "../../db/repo/document-pages";
import { listDocumentsWithPreview } from "../../db/repo/documents";
import { Enum, QueryInteger, StrictInteger } from "../../http/schemas";
import { SourceModel, type Source } from "./schemas";
import { presentSources } from "./present";

/** A page holds this many sources unless `pageSize` says otherwise; a pipeline embeds as many. */
export const SOURCE_PAGE_SIZE = 20;

const statusWord = `(?:${DOCUMENT_STATUSES.join("|")})`;

export const SourceListQuery = t.Object({
  // No schema defaults: Elysia would fill them in, and a request without any of
  // these parameters must still get the unpaged array.
  page: t.Optional(QueryInteger({ minimum: 1, maximum: 1_000_000, description: "1 when absent." })),
  pageSize: t.Optional(QueryInteger({ minimum: 1, maximum: 100, description: `${SOURCE_PAGE_SIZE} when absent.` })),
  q: t.Optional(
    t.String({ maxLength: 200, description: "Keeps sources whose name contains it, ignoring case; taken literally." }),
  ),
  status: t.Optional(
    t.String({
      pattern: `^${statusWord}(?:,${statusWord})*$`,
      error: `must be one or more of ${DOCUMENT_STATUSES.join(", ")}, separated by commas`,
      description: "One status, or several separated by commas (queued,processing).",
    }),
  ),
  sort: t.Optional(
    Enum(["createdAt", "-createdAt"] as const, {
      description: "createdAt (oldest first, when absent) or -createdAt (newest first).",
    }),
  ),
});

export type SourceListQueryIn = typeof SourceListQuery.static;

const statusCounts = t.Object(
  Object.fromEntries(DOCUMENT_STATUSES.map((s) => [s, StrictInteger()])) as Record<
    DocumentStatus,
    ReturnType<typeof StrictInteger>
  >,
  { description: "How many of the pipeline's sources are in each status, whatever `q` and `status` ask for." },
);

export const SourcePage = t.Object({
  data: t.Array(SourceModel),
  page: StrictInteger(),
  pageSize: StrictInteger(),
  total: StrictInteger({ description: "Sources matching `q` and `status`." }),
  totalPages: StrictInteger(),
  counts: statusCounts,
  ingest: t.Object(
    {
      reindex: t.Boolean({ description: "True while a re-index builds a new index of the pipeline." }),
      chunksReady: StrictInteger({ description: "Chunks of the sources that are ready." }),
      chunksDone: StrictInteger({ description: "Chunks embedded so far of the sources being processed." }),
      chunksTotal: StrictInteger({
        description: "Chunks the sources being processed will have, as far as known (0 before a source is split).",
      }),
    },
    { description: "Progress in chunks, for a progress bar with a rate; whatever `q` and `status` ask for." },
  ),
});

export type SourcePageOut = typeof SourcePage.static;

/** True when the caller asked for a page (any of page, pageSize, q, status, sort). */
export const wantsPage = (q: SourceListQueryIn): boolean =>
  q.page !== undefined ||
  q.pageSize !== undefined ||
  q.q !== undefined ||
  q.status !== undefined ||
  q.sort !== undefined;

/** One page of a pipeline's sources, in the order asked, with the per-status counts. */
export async function pageSources(
  db: Db,
  collection: Pick<Collection, "id" | "buildingGeneration">,
  q: SourceListQueryIn,
): Promise<SourcePageOut> {
  const collectionId = collection.id;
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? SOURCE_PAGE_SIZE;
  const nameContains = q.q?.trim() || undefined;
  const statuses = q.status ? ([...new Set(q.status.split(","))] as DocumentStatus[]) : undefined;
  const offset = (page - 1) * pageSize;
  const filter = {
    collectionId,
    nameContains,
    statuses,
    newestFirst: q.sort === "-createdAt",
    limit: pageSize,
    offset,
  };
  const { counts, chunks } = await countDocumentsByStatus(db, collectionId);
  // The caller read the pipeline row to check its owner: no second read for the re-index flag.
  const reindex = collection.buildingGeneration !== null;
  // Without a search the counts already hold the total: one scan of the pipeline fewer.
  const total = nameContains
    ? await countDocumentsMatching(db, filter)
    : (statuses ?? DOCUMENT_STATUSES).reduce((n, s) => n + counts[s], 0);
  const rows = await findDocumentPage(db, filter);
  return {
    data: await presentSources(db, rows),
    page,
    pageSize,
    total,
    totalPages: Math.ceil(total / pageSize),
    counts,
    ingest: { reindex, chunksReady: chunks.ready, chunksDone: chunks.done, chunksTotal: chunks.total },
  };
}

/** Every source of a pipeline, oldest first: the unpaged answer kept for existing clients. */
export async function allSources(db: Db, collectionId: string): Promise<Source[]> {
  return presentSources(db, await listDocumentsWithPreview(db, collectionId));
}

/** The sources a pipeline object embeds: the first page, never more (docs/API.md, pipelines). */
export async function embeddedSources(db: Db, collectionId: string): Promise<Source[]> {
  return presentSources(db, await findDocumentPage(db, { collectionId, limit: SOURCE_PAGE_SIZE, offset: 0 }));
}
