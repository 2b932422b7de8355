/**
 * Every account for an administrator: tier (changeable in place), role, state,
 * pipeline and chunk counts, last sign-in, and the actions on it. A table on wide
 * screens, stacked on a phone.
 */
import type { AdminUser, Tier } from "../api/types";
import { type Key, t } from "../i18n";
import { formatNumber } from "../lib/format";
import { TIER_NAMES } from "./TierBadge";
import { TimeAgo } from "./TimeAgo";

export type UserAction = "reset" | "disable" | "enable" | "grant" | "revoke" | "delete";

interface Props {
  items: AdminUser[];
  /** The signed-in administrator's id: their own row says "you". */
  selfId: string;
  busy: boolean;
  onTier: (u: AdminUser, tier: Tier) => void;
  onAction: (u: AdminUser, action: UserAction) => void;
}

const TIERS: Tier[] = ["free", "pro", "unlimited"];

export function AdminUserTable({ items, selfId, busy, onTier, onAction }: Props) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">{t("adminUsers.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("common.email")}</th>
            <th scope="col">{t("adminUsers.tier")}</th>
            <th scope="col">{t("adminUsers.role")}</th>
            <th scope="col">{t("shell.pipelines")}</th>
            <th scope="col">{t("pipelineTable.chunks")}</th>
            <th scope="col">{t("adminUsers.lastSignIn")}</th>
            <th scope="col">
              <span class="sr-only">{t("common.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((u) => (
            <tr key={u.id} data-testid="admin-user-row">
              <th scope="row" data-label={t("common.email")}>
                {u.email}
                {u.id === selfId && <span class="muted"> {t("adminUsers.you")}</span>}
              </th>
              <td data-label={t("adminUsers.tier")}>
                <select
                  class="admin-tier"
                  aria-label={t("adminUsers.tierOf", { email: u.email })}
                  value={u.tier}
                  disabled={busy}
                  onChange={(e) => onTier(u, e.currentTarget.value as Tier)}
                >
                  {TIERS.map((tier) => (
                    <option key={tier} value={tier}>
                      {t(TIER_NAMES[tier])}
                    </option>
                  ))}
                </select>
              </td>
              <td data-label={t("adminUsers.role")}>
                <Role user={u} />
              </td>
              <td data-label={t("shell.pipelines")}>{formatNumber(u.pipelineCount)}</td>
              <td data-label={t("pipelineTable.chunks")}>{formatNumber(u.chunkCount)}</td>
              <td data-label={t("adminUsers.lastSignIn")}>
                {u.lastSignInAt ? <TimeAgo at={u.lastSignInAt} /> : <span class="muted">{t("common.never")}</span>}
              </td>
              <td class="actions">
                <Actions user={u} busy={busy} onAction={onAction} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Role({ user: u }: { user: AdminUser }) {
  return (
    <span class="role-badges">
      {u.isAdmin ? (
        <span class="badge badge-good">{t("adminUsers.administrator")}</span>
      ) : (
        <span class="muted">{t("adminUsers.user")}</span>
      )}
      {u.disabled && <span class="badge badge-bad">{t("adminUsers.disabled")}</span>}
    </span>
  );
}

/** The row's buttons, each labelled with the account it acts on. */
function Actions({ user: u, busy, onAction }: { user: AdminUser; busy: boolean; onAction: Props["onAction"] }) {
  const button = (action: UserAction, key: Key, danger = false) => {
    const label = t(key);
    return (
      <button
        type="button"
        class={`btn btn-small ${danger ? "btn-ghost-danger" : "btn-ghost"}`}
        disabled={busy}
        onClick={() => onAction(u, action)}
        aria-label={t("adminUsers.actionOn", { label, email: u.email })}
      >
        {label}
      </button>
    );
  };
  return (
    <>
      {button("reset", "adminUsers.reset")}
      {u.isAdmin ? button("revoke", "adminUsers.revoke") : button("grant", "adminUsers.grant")}
      {u.disabled ? button("enable", "adminUsers.enable") : button("disable", "adminUsers.disable", true)}
      {button("delete", "adminUsers.delete", true)}
    </>
  );
}
