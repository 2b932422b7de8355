/** The types of documents by id: what a synced file's parent is (folder, s3, …), for the field that links it. */
import { inArray } from "drizzle-orm";
import type { Db } from "../client";
import { tables } from "../dialect";

/** Ids are read 500 at a time; null and unknown ids are left out. */
export async function documentTypesOf(db: Db, ids: (string | null)[]): Promise<Map<string, string>> {
  const { documents } = tables(db);
  const wanted = ids.filter((id): id is string => id !== null);
  const out = new Map<string, string>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db
      .select({ id: documents.id, type: documents.type })
      .from(documents)
      .where(inArray(documents.id, wanted.slice(i, i + 500)));
    for (const r of rows) out.set(r.id, r.type);
  }
  return out;
}
