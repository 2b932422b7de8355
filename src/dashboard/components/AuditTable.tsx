/** The audit log, newest first: when, who, what, to whom. */
import type { AuditEntry } from "../api/types";
import { TimeAgo } from "./TimeAgo";

const ACTIONS: Record<string, string> = {
  "user.created": "created the account",
  "user.tier_changed": "changed the tier",
  "user.admin_granted": "made administrator",
  "user.admin_revoked": "removed administrator",
  "user.password_reset": "reset the password",
  "user.disabled": "disabled",
  "user.enabled": "enabled",
  "user.deleted": "deleted",
};

/** What happened, in words, with the facts the entry carries (from → to). */
function what(e: AuditEntry): string {
  const base = ACTIONS[e.action] ?? e.action;
  const { from, to } = e.details as { from?: string; to?: string };
  return from && to ? `${base} (${from} → ${to})` : base;
}

export function AuditTable({ items }: { items: AuditEntry[] }) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">Audit log</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Did</th>
            <th scope="col">Account</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.id} data-testid="audit-row">
              <td data-label="When">
                <TimeAgo at={e.at} />
              </td>
              <td data-label="Who">{e.actor}</td>
              <td data-label="Did">{what(e)}</td>
              <td data-label="Account">{e.targetEmail ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
