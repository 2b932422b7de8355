/** The audit log, newest first: when, who, what, to whom. */
import type { AuditEntry } from "../api/types";
import { type Key, t } from "../i18n";
import { TimeAgo } from "./TimeAgo";

const ACTIONS: Record<string, Key> = {
  "user.created": "audit.created",
  "user.tier_changed": "audit.tierChanged",
  "user.admin_granted": "audit.adminGranted",
  "user.admin_revoked": "audit.adminRevoked",
  "user.password_reset": "audit.passwordReset",
  "user.disabled": "audit.disabled",
  "user.enabled": "audit.enabled",
  "user.deleted": "audit.deleted",
  "invitation.created": "audit.invited",
  "invitation.revoked": "audit.invitationRevoked",
  "invitation.accepted": "audit.invitationAccepted",
};

/** What happened, in words, with the facts the entry carries (from → to). */
function what(e: AuditEntry): string {
  const key = ACTIONS[e.action];
  const base = key ? t(key) : e.action;
  const { from, to } = e.details as { from?: string; to?: string };
  return from && to ? `${base} (${from} → ${to})` : base;
}

export function AuditTable({ items }: { items: AuditEntry[] }) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">{t("audit.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("audit.when")}</th>
            <th scope="col">{t("audit.who")}</th>
            <th scope="col">{t("audit.did")}</th>
            <th scope="col">{t("audit.account")}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.id} data-testid="audit-row">
              <td data-label={t("audit.when")}>
                <TimeAgo at={e.at} />
              </td>
              <td data-label={t("audit.who")}>{e.actor}</td>
              <td data-label={t("audit.did")}>{what(e)}</td>
              <td data-label={t("audit.account")}>{e.targetEmail ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
