/**
 * The MCP `list_sources` tool's pages (tools.ts). A caller that may see everything gets its
 * page from SQL, one page and a count; a restricted one (keys/access.ts) gets the page of
 * the sources it may see, which only the table's label copies tell (source-text.ts), so
 * every source is read for it. At 1,000,000 sources, reading every source whole for each
 * page of an unrestricted caller took 5.3–9.1 s and 3 GB of memory; page 10,001 and the
 * count take 0.1 s (2 s with SQLite's cache cold).
 */
import { countDocumentsMatching, type DocumentStatus, findDocumentPage } from "../../db/repo/document-pages";
import { listDocuments } from "../../db/repo/documents";
import { withoutAccessList } from "../../retrieval/current-labels";
import { presentSource } from "../sources/present";
import type { Collection, DocumentRow } from "../../db/schema";
import type { Store } from "../../db/store";
import type { SourceReader } from "./source-text";

export const LIST_PAGE_SIZE = 50;

/** What a listing needs of the tool call's context (tools.ts, ToolContext). */
interface ListContext {
  collection: Collection;
  /** What the caller may see (keys/access.ts); null: everything. */
  access: string | null;
  db: Store;
  reader: SourceReader;
}

/** Page `page` (from 1) of the pipeline's sources the caller may see, oldest first, with `status` when given. */
export async function listSources(ctx: ListContext, page: number, status?: DocumentStatus) {
  const { rows, total } = ctx.access === null ? await sqlPage(ctx, page, status) : await shownPage(ctx, page, status);
  const sources = rows.map((d) => {
    // The text itself is for read; a listing carries its length only.
    const {
      content: _preview,
      progress: _progress,
      pipelineId: _pipeline,
      ...s
    } = presentSource({ ...d, preview: null });
    // A restricted caller is not told who else may see a source (retrieval/current-labels.ts).
    return ctx.access === null ? s : { ...s, metadata: withoutAccessList(s.metadata) };
  });
  return { sources, page, pageSize: LIST_PAGE_SIZE, total, totalPages: Math.ceil(total / LIST_PAGE_SIZE) };
}

type Page = { rows: DocumentRow[]; total: number };

async function sqlPage(ctx: ListContext, page: number, status?: DocumentStatus): Promise<Page> {
  const filter = { collectionId: ctx.collection.id, ...(status ? { statuses: [status] } : {}) };
  const offset = (page - 1) * LIST_PAGE_SIZE;
  const [rows, total] = await Promise.all([
    findDocumentPage(ctx.db.reader, { ...filter, limit: LIST_PAGE_SIZE, offset }),
    countDocumentsMatching(ctx.db.reader, filter),
  ]);
  return { rows, total };
}

async function shownPage(ctx: ListContext, page: number, status?: DocumentStatus): Promise<Page> {
  const listed = (await listDocuments(ctx.db.reader, ctx.collection.id)).filter((d) => !status || d.status === status);
  const all = await ctx.reader.shown(ctx.collection, listed, ctx.access);
  return { rows: all.slice((page - 1) * LIST_PAGE_SIZE, page * LIST_PAGE_SIZE), total: all.length };
}
