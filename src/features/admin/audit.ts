/**
 * The audit log: who did what administrative action when. Entries are written by
 * AdminService in the same transaction as the change they record, and read here as
 * pages of JSON or as JSON lines (docs/API.md, Audit log).
 */
import type { Db } from "../../db/client";
import { insertAudit, listAudit } from "../../db/repo/admin";
import type { AuditRow } from "../../db/schema";
import type { Store } from "../../db/store";

/** Who acts: an administrator's session (id and email) or the command line (id null). */
export interface Actor {
  id: string | null;
  label: string;
}

export type AuditAction =
  | "user.created"
  | "user.tier_changed"
  | "user.admin_granted"
  | "user.admin_revoked"
  | "user.password_reset"
  | "user.disabled"
  | "user.enabled"
  | "user.deleted"
  | "invitation.created"
  | "invitation.revoked"
  | "invitation.accepted";

/** Whom an entry is about: an account, or an invitation (its id and email). */
export interface AuditTarget {
  id: string;
  email: string;
}

/** Writes one entry; `db` is the transaction of the change it records. */
export async function writeAudit(
  db: Db,
  actor: Actor,
  action: AuditAction,
  target: AuditTarget,
  details: Record<string, unknown> = {},
): Promise<void> {
  await insertAudit(db, {
    at: new Date().toISOString(),
    actorId: actor.id,
    actor: actor.label,
    action,
    targetId: target.id,
    targetEmail: target.email,
    details: JSON.stringify(details),
  });
}

export interface AuditEntry {
  id: number;
  at: string;
  actorId: string | null;
  actor: string;
  action: string;
  targetId: string | null;
  targetEmail: string | null;
  details: Record<string, unknown>;
}

/** Entries read per statement while writing JSON lines. */
const JSONL_BATCH = 500;

function present(r: AuditRow): AuditEntry {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(r.details);
  } catch {
    // a damaged value shows as no details
  }
  return { ...r, details };
}

export class AuditLog {
  constructor(private readonly db: Store) {}

  /** A page, newest first; `before` is the last id of the previous page. */
  async page(limit: number, before?: number): Promise<{ data: AuditEntry[]; nextBefore: number | null }> {
    const rows = await listAudit(this.db.reader, { limit, before });
    const next = rows.length === limit ? rows[rows.length - 1]!.id : null;
    return { data: rows.map(present), nextBefore: next };
  }

  /** Every entry after `after` (an id), oldest first, one JSON object a line. */
  async *lines(after = 0): AsyncGenerator<string> {
    let cursor = after;
    for (;;) {
      const rows = await listAudit(this.db.reader, { limit: JSONL_BATCH, after: cursor });
      for (const r of rows) yield `${JSON.stringify(present(r))}\n`;
      if (rows.length < JSONL_BATCH) return;
      cursor = rows[rows.length - 1]!.id;
    }
  }
}
