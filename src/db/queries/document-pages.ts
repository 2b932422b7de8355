/**
 * Named queries that page through a collection's documents: one page with the
 * start of each text, the total that matched, and the count per status. They
 * read the (collection_id, id) index, so a page of a 20,000-source pipeline
 * costs a few milliseconds; no other index is needed for it.
 */
import { and, asc, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { documents, documentTexts, type DocumentRow } from "../schema";
import { CONTENT_PREVIEW_CHARS, type DocumentWithPreview } from "./documents";

export type DocumentStatus = DocumentRow["status"];

export const DOCUMENT_STATUSES: readonly DocumentStatus[] = [
  "awaiting_upload",
  "queued",
  "processing",
  "ready",
  "failed",
];

export interface DocumentPageFilter {
  collectionId: string;
  /** Keeps documents whose name contains it, ignoring the case of A–Z; taken literally (no wildcards). */
  nameContains?: string;
  /** Keeps documents in any of these statuses; all when absent. */
  statuses?: DocumentStatus[];
  limit: number;
  offset: number;
}

/** `instr` matches the text as given, so `%` and `_` in a search are plain characters. */
const nameMatches = (needle: string): SQL => sql`instr(lower(${documents.name}), lower(${needle})) > 0`;

function conditions(f: Omit<DocumentPageFilter, "limit" | "offset">): SQL | undefined {
  const where: SQL[] = [eq(documents.collectionId, f.collectionId)];
  if (f.nameContains) where.push(nameMatches(f.nameContains));
  if (f.statuses?.length) where.push(inArray(documents.status, f.statuses));
  return and(...where);
}

/**
 * A page of a collection's documents, oldest first, each with the start of its
 * text, and how many matched in all.
 * Example: `pageDocuments(db, { collectionId, nameContains: "faq", limit: 20, offset: 0 })`.
 */
export function pageDocuments(db: Db, f: DocumentPageFilter): { rows: DocumentWithPreview[]; total: number } {
  const cond = conditions(f);
  const total = db.select({ n: count() }).from(documents).where(cond).get()?.n ?? 0;
  return { rows: firstDocuments(db, cond, f.limit, f.offset), total };
}

/** The first `limit` documents of a collection, oldest first, without counting them all. */
export function headDocuments(db: Db, collectionId: string, limit: number): DocumentWithPreview[] {
  return firstDocuments(db, conditions({ collectionId }), limit, 0);
}

function firstDocuments(db: Db, cond: SQL | undefined, limit: number, offset: number): DocumentWithPreview[] {
  return db
    .select({
      row: documents,
      preview: sql<string | null>`substr(${documentTexts.content}, 1, ${CONTENT_PREVIEW_CHARS})`,
    })
    .from(documents)
    .leftJoin(documentTexts, eq(documentTexts.documentId, documents.id))
    .where(cond)
    .orderBy(asc(documents.id))
    .limit(limit)
    .offset(offset)
    .all()
    .map((r) => ({ ...r.row, preview: r.preview }));
}

/** How many of a collection's documents are in each status (every status present, 0 when none). One grouped query. */
export function countDocumentsByStatus(db: Db, collectionId: string): Record<DocumentStatus, number> {
  const counts = Object.fromEntries(DOCUMENT_STATUSES.map((s) => [s, 0])) as Record<DocumentStatus, number>;
  const rows = db
    .select({ status: documents.status, n: count() })
    .from(documents)
    .where(eq(documents.collectionId, collectionId))
    .groupBy(documents.status)
    .all();
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}
