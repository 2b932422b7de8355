/**
 * Invitations for an administrator, newest first: email, tier, status, expiry, who
 * made it, and Revoke while one is pending. The link itself is never shown again.
 */
import type { Invitation } from "../api/types";
import { type Key, t } from "../i18n";
import { formatDate } from "../lib/format";
import { TIER_NAMES } from "./TierBadge";

const STATUS: Record<Invitation["status"], { key: Key; cls: string }> = {
  pending: { key: "invitations.pending", cls: "badge-warn" },
  used: { key: "invitations.used", cls: "badge-good" },
  expired: { key: "invitations.expired", cls: "badge-neutral" },
  revoked: { key: "invitations.revoked", cls: "badge-bad" },
};

interface Props {
  items: Invitation[];
  busy: boolean;
  onRevoke: (i: Invitation) => void;
}

export function InvitationTable({ items, busy, onRevoke }: Props) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">{t("invitations.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("common.email")}</th>
            <th scope="col">{t("adminUsers.tier")}</th>
            <th scope="col">{t("common.status")}</th>
            <th scope="col">{t("invitations.expires")}</th>
            <th scope="col">{t("invitations.by")}</th>
            <th scope="col">
              <span class="sr-only">{t("common.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.id} data-testid="invitation-row">
              <th scope="row" data-label={t("common.email")}>
                {i.email}
                {i.isAdmin && <span class="muted"> ({t("adminUsers.administrator")})</span>}
              </th>
              <td data-label={t("adminUsers.tier")}>{t(TIER_NAMES[i.tier])}</td>
              <td data-label={t("common.status")}>
                <span class={`badge ${STATUS[i.status].cls}`}>{t(STATUS[i.status].key)}</span>
              </td>
              <td data-label={t("invitations.expires")}>
                <time dateTime={i.expiresAt}>{formatDate(i.expiresAt)}</time>
              </td>
              <td data-label={t("invitations.by")}>{i.createdBy}</td>
              <td class="actions">
                {i.status === "pending" && (
                  <button
                    type="button"
                    class="btn btn-small btn-ghost-danger"
                    disabled={busy}
                    onClick={() => onRevoke(i)}
                    aria-label={t("adminUsers.actionOn", { label: t("invitations.revoke"), email: i.email })}
                  >
                    {t("invitations.revoke")}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
