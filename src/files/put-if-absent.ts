/**
 * Whether the object store honours `If-None-Match: *` on PUT (put-if-absent). LanceDB
 * commits a table version on S3 by writing the next manifest with that header, and a
 * refused write makes the losing writer reload and retry; a store that ignores the header
 * lets concurrent writers overwrite each other's commits with no error, and rows vanish
 * (docs/ARCHITECTURE.md, Object storage). S3-compatible stores differ, so ragd asks the
 * store itself rather than trust a list.
 */
import type { ObjectStorage } from "../config-storage";
import { storageKey } from "../config-storage";
import { ConfigError } from "../config-values";
import { presignUrl } from "./presign";

export type PutIfAbsent = "honoured" | "ignored";

/** Writers racing for one new key: exactly one may win. */
const RACERS = 4;

/**
 * Probes the store under `<prefix>/_ragd/`: several conditional PUTs race for a new key,
 * then two more follow on the same key. Honoured means exactly one of them all succeeded
 * and the store refused the others (412, or 409 for a write still in flight, as AWS S3
 * may answer). Throws when the store refuses the probe for another reason (wrong keys, no
 * bucket): then it says nothing about commits. The probe object is deleted after.
 */
export async function probePutIfAbsent(store: ObjectStorage): Promise<PutIfAbsent> {
  const key = storageKey(store, `_ragd/put-if-absent-${crypto.randomUUID()}`);
  // Only `host` is signed, so the store's own answer to the header is what is measured.
  const url = presignUrl(store, { method: "PUT", key, expiresInS: 300 });
  const put = (body: string) =>
    fetch(url, { method: "PUT", body, headers: { "if-none-match": "*" } }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  try {
    const all = await Promise.all(Array.from({ length: RACERS }, (_, i) => put(`racer ${i}`)));
    // Two late ones: if every racer was refused as in flight, the first may create the key.
    for (const late of ["late 1", "late 2"]) all.push(await put(late));
    const odd = all.find((s) => !isSuccess(s) && !isRefusal(s));
    if (odd !== undefined) throw new Error(`the object store answered ${odd} to a PUT under ${key}`);
    return all.filter(isSuccess).length === 1 ? "honoured" : "ignored";
  } finally {
    await fetch(presignUrl(store, { method: "DELETE", key, expiresInS: 300 }), { method: "DELETE" }).then(
      (r) => r.arrayBuffer(),
      () => {},
    );
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * A conditional PUT refused because the key exists: 412 Precondition Failed, or 409 when
 * a conflicting conditional write was still in flight. The one reading of those answers
 * (table-creation.ts claims table creations with the same header).
 */
export function isRefusal(status: number): boolean {
  return status === 412 || status === 409;
}

/**
 * Replicas write the same LanceDB tables from several processes; LanceDB keeps their
 * commits apart by put-if-absent alone. On a store that ignores it, concurrent commits
 * would overwrite each other and rows would vanish without an error, so replicas refuse
 * to start there (one server alone on such a store keeps its writes in one queue).
 */
export async function requireCommitSafeStore(store: ObjectStorage): Promise<void> {
  if ((await probePutIfAbsent(store)) === "honoured") return;
  throw new ConfigError(
    "this object store ignores If-None-Match: * on PUT, and with RAGD_DATABASE_URL and RAGD_STORAGE_URL ragd runs as replicas, " +
      "whose LanceDB commits would then overwrite each other; use a store that honours conditional writes (AWS S3, MinIO and Ceph RGW do)",
  );
}
