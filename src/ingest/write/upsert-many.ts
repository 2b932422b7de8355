/**
 * The items of a batch request in one transaction (docs/API.md, Documents API): the
 * new documents, the common case of a first sync, go in with a few statements for
 * all (rows, texts, tasks, `source.queued` events); a text sent again unchanged, the
 * common case of a later sync, is answered from the stored rows the batch reads at
 * once; any other item that replaces or leaves a stored document goes through
 * upsert.ts as a single upsert does. Each part has its own
 * savepoint: if the statements for the new documents fail, those items are stored one
 * by one instead, so a refused item undoes only itself.
 */
import type { Db } from "../../db/client";
import { savepoint } from "../../db/prepared";
import { findCollectionById } from "../../db/repo/collections";
import { documentsByExternalIds } from "../../db/repo/external-documents";
import { saveSourceFetch } from "../../db/repo/source-fetches";
import { insertNewDocuments } from "../tasks/queue";
import { fetchRowOf } from "../sync/refresh";
import { createdRow, type UpsertPlan, type Upserted, untouched, upsertDocumentTx } from "./upsert";

/** One item's outcome: stored, its collection gone (null), or its error. */
export type UpsertResult = { ok: true; value: Upserted | null } | { ok: false; error: unknown };

/**
 * Upserts the plans of one collection (distinct external ids, no files) inside the
 * caller's transaction; `onReplaced` hears of each replaced document (its running job
 * must stop). Results in the order of the plans.
 */
export async function upsertDocumentsTx(
  t: Db,
  plans: UpsertPlan[],
  now: number,
  onReplaced: (documentId: string) => void,
): Promise<UpsertResult[]> {
  const results: (UpsertResult | null)[] = plans.map(() => null);
  const col = plans.length > 0 ? await findCollectionById(t, plans[0]!.collectionId) : undefined;
  if (!col) return plans.map(() => ({ ok: true, value: null }));
  const stored = await documentsByExternalIds(
    t,
    col.id,
    plans.map((p) => p.externalId),
  );
  for (const [i, p] of plans.entries()) {
    const existing = stored.get(p.externalId);
    const same = existing ? untouched(existing, p) : null;
    if (same) results[i] = { ok: true, value: same };
  }
  const fresh = plans.flatMap((p, i) => (stored.has(p.externalId) || p.file ? [] : [{ i, row: createdRow(p, now) }]));
  try {
    await savepoint(t, async (tx) => {
      await insertNewDocuments(
        tx,
        fresh.map(({ i, row }) => ({ row, content: plans[i]!.content })),
        col,
        now,
      );
      // url/api documents get their schedule and crawl in the same commit, as a single upsert does.
      for (const { i, row } of fresh)
        if (row.type === "url" || row.type === "api")
          await saveSourceFetch(tx, row.id, fetchRowOf(plans[i]!.fetch ?? {}, now));
    });
    for (const { i, row } of fresh)
      results[i] = { ok: true, value: { status: "created", row, metadataChanged: false, queued: true } };
  } catch {
    // Left to the one-by-one path below, where each item meets its own error.
  }
  const out: UpsertResult[] = [];
  for (const [i, r] of results.entries()) out.push(r ?? (await one(t, plans[i]!, now, onReplaced)));
  return out;
}

/** One item as a single upsert stores it, in its own savepoint. */
async function one(
  t: Db,
  plan: UpsertPlan,
  now: number,
  onReplaced: (documentId: string) => void,
): Promise<UpsertResult> {
  try {
    const value = await savepoint(t, (tx) => upsertDocumentTx(tx, plan, now));
    if (value?.status === "replaced") onReplaced(value.row.id);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}
