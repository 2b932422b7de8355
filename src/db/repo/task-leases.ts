/**
 * Leases of running tasks, for replicas (several processes on one database): a claim
 * holds its task until `lease_until`, the process running it renews the lease while it
 * runs, and any replica puts a task whose lease ran out back in the queue (its process
 * died or lost the database), with its document.
 */
import type { Db } from "../client";
import { type PlainSql, selectRows } from "../dialect";

const iso = (ms: number) => new Date(ms).toISOString();

// A claim is its task at its attempt: a task reclaimed since (attempts moved on), ended or
// deleted is not renewed, and its absence from the answer tells the caller it is lost.
const RENEW: PlainSql = {
  sqlite: `UPDATE tasks SET lease_until = $until WHERE status = 'processing'
  AND id || ':' || attempts IN (SELECT value FROM json_each($claims))
  RETURNING id || ':' || attempts AS claim`,
  pg: `UPDATE tasks SET lease_until = $until WHERE status = 'processing'
  AND id || ':' || attempts IN (SELECT value FROM jsonb_array_elements_text($claims::text::jsonb) AS j(value))
  RETURNING id || ':' || attempts AS claim`,
};

/** A running claim: its task and the attempt it runs. */
export interface Claim {
  id: string;
  attempts: number;
}

/** `id:attempts`, as RENEW and HELD name a claim. */
export const claimKey = (c: Claim) => `${c.id}:${c.attempts}`;

/** Extends the leases of the claims still held to `until`; returns those (by claimKey). */
export async function renewLeases(db: Db, claims: Claim[], until: number): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await selectRows<{ claim: string }>(db, RENEW, {
    claims: JSON.stringify(claims.map(claimKey)),
    until: iso(until),
  });
  return new Set(rows.map((r) => r.claim));
}

const HELD: PlainSql = {
  sqlite: `SELECT id || ':' || attempts AS claim FROM tasks WHERE status = 'processing'
  AND id || ':' || attempts IN (SELECT value FROM json_each($claims))`,
  pg: `SELECT id || ':' || attempts AS claim FROM tasks WHERE status = 'processing'
  AND id || ':' || attempts IN (SELECT value FROM jsonb_array_elements_text($claims::text::jsonb) AS j(value))`,
};

/** The claims (by claimKey) whose tasks are still processing at the same attempt. */
export async function heldClaims(db: Db, claims: Claim[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await selectRows<{ claim: string }>(db, HELD, { claims: JSON.stringify(claims.map(claimKey)) });
  return new Set(rows.map((r) => r.claim));
}

// A lease beyond $far is a server alone's (leases.ts LEASE_MS), left by one that stopped
// before its data moved to replicas: no replica renews it, so it goes back too.
const EXPIRED_WHERE = "status = 'processing' AND (lease_until < $now OR lease_until > $far)";

const EXPIRED: PlainSql = {
  sqlite: `UPDATE tasks SET status = 'queued', lease_until = NULL, run_after = $now, updated_at = $now
  WHERE ${EXPIRED_WHERE}
  RETURNING document_id AS documentId`,
  pg: `WITH expired AS (SELECT id FROM tasks WHERE ${EXPIRED_WHERE} FOR UPDATE SKIP LOCKED)
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

const ANY_EXPIRED_SQL = `SELECT 1 AS one FROM tasks WHERE ${EXPIRED_WHERE} LIMIT 1`;
const ANY_EXPIRED: PlainSql = { sqlite: ANY_EXPIRED_SQL, pg: ANY_EXPIRED_SQL };

/** Whether requeueExpired would find a task: one read, no write transaction. */
export async function anyExpired(db: Db, now: number, farMs: number): Promise<boolean> {
  return (await selectRows(db, ANY_EXPIRED, { now: iso(now), far: iso(now + farMs) })).length > 0;
}

/**
 * Puts running tasks whose lease ran out (or runs beyond `farMs` from now: see EXPIRED)
 * back in the queue, and their documents that no
 * other task runs; returns those documents (their `source.queued` events are the
 * caller's, in the same transaction).
 */
export async function requeueExpired(db: Db, now: number, farMs: number): Promise<string[]> {
  const tasks = await selectRows<{ documentId: string }>(db, EXPIRED, { now: iso(now), far: iso(now + farMs) });
  return documentsBack(db, tasks, now);
}

const RELEASE: PlainSql = {
  sqlite: `UPDATE tasks SET status = 'queued', lease_until = NULL, run_after = $now, updated_at = $now
  WHERE status = 'processing' AND id || ':' || attempts IN (SELECT value FROM json_each($claims))
  RETURNING document_id AS documentId`,
  pg: `UPDATE tasks SET status = 'queued', lease_until = NULL, run_after = $now, updated_at = $now
  WHERE status = 'processing'
    AND id || ':' || attempts IN (SELECT value FROM jsonb_array_elements_text($claims::text::jsonb) AS j(value))
  RETURNING document_id AS "documentId"`,
};

/**
 * Gives claims still held back to the queue at once (a replica stopping: the others need
 * not wait for its leases), with their documents as requeueExpired does; returns those.
 */
export async function releaseClaims(db: Db, claims: Claim[], now: number): Promise<string[]> {
  if (claims.length === 0) return [];
  const tasks = await selectRows<{ documentId: string }>(db, RELEASE, {
    claims: JSON.stringify(claims.map(claimKey)),
    now: iso(now),
  });
  return documentsBack(db, tasks, now);
}

async function documentsBack(db: Db, tasks: { documentId: string }[], now: number): Promise<string[]> {
  if (tasks.length === 0) return [];
  const ids = JSON.stringify([...new Set(tasks.map((t) => t.documentId))]);
  return (await selectRows<{ id: string }>(db, DOCUMENTS_BACK, { ids, now: iso(now) })).map((r) => r.id);
}
