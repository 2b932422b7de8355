/**
 * Leases of running tasks, for replicas (several processes on one database): a claim
 * holds its task until `lease_until`, the process running it renews the lease while it
 * runs, and any replica puts a task whose lease ran out back in the queue (its process
 * died or lost the database), with its document.
 */
import type { Db } from "../client";
import { type PlainSql, runSql, selectRows } from "../dialect";

const iso = (ms: number) => new Date(ms).toISOString();

const RENEW: PlainSql = {
  sqlite: `UPDATE tasks SET lease_until = $until WHERE status = 'processing'
  AND id IN (SELECT value FROM json_each($ids))`,
  pg: `UPDATE tasks SET lease_until = $until WHERE status = 'processing'
  AND id IN (SELECT value FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value))`,
};

/** Extends the leases of the running tasks `taskIds` to `until`. */
export async function renewLeases(db: Db, taskIds: string[], until: number): Promise<void> {
  if (taskIds.length > 0) await runSql(db, RENEW, { ids: JSON.stringify(taskIds), until: iso(until) });
}

const EXPIRED: PlainSql = {
  sqlite: `UPDATE tasks SET status = 'queued', lease_until = NULL, run_after = $now, updated_at = $now
  WHERE status = 'processing' AND lease_until < $now
  RETURNING document_id AS documentId`,
  // SKIP LOCKED: a row another replica is renewing or ending is not expired for long.
  pg: `WITH expired AS (SELECT id FROM tasks WHERE status = 'processing' AND lease_until < $now FOR UPDATE SKIP LOCKED)
  UPDATE tasks SET status = 'queued', lease_until = NULL, run_after = $now, updated_at = $now
  FROM expired WHERE tasks.id = expired.id
  RETURNING document_id AS "documentId"`,
};

const DOCUMENTS_BACK: PlainSql = {
  sqlite: `UPDATE documents SET status = 'queued', updated_at = $now WHERE status = 'processing'
  AND id IN (SELECT value FROM json_each($ids))
  AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.document_id = documents.id AND t.status = 'processing')
  RETURNING id`,
  pg: `UPDATE documents SET status = 'queued', updated_at = $now WHERE status = 'processing'
  AND id IN (SELECT value FROM jsonb_array_elements_text($ids::text::jsonb) AS j(value))
  AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.document_id = documents.id AND t.status = 'processing')
  RETURNING id`,
};

/**
 * Puts running tasks whose lease ran out back in the queue, and their documents that no
 * other task runs; returns those documents (their `source.queued` events are the
 * caller's, in the same transaction).
 */
export async function requeueExpired(db: Db, now: number): Promise<string[]> {
  const tasks = await selectRows<{ documentId: string }>(db, EXPIRED, { now: iso(now) });
  if (tasks.length === 0) return [];
  const ids = JSON.stringify([...new Set(tasks.map((t) => t.documentId))]);
  return (await selectRows<{ id: string }>(db, DOCUMENTS_BACK, { ids, now: iso(now) })).map((r) => r.id);
}
