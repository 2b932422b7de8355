/**
 * Every account for an administrator: tier (changeable in place), role, state,
 * pipeline and chunk counts, last sign-in, and the actions on it. A table on wide
 * screens, stacked on a phone.
 */
import type { AdminUser, Tier } from "../api/types";
import { formatNumber } from "../lib/format";
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

const TIERS: { value: Tier; label: string }[] = [
  { value: "free", label: "Free" },
  { value: "pro", label: "Pro" },
  { value: "unlimited", label: "Unlimited" },
];

export function AdminUserTable({ items, selfId, busy, onTier, onAction }: Props) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">Users</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Tier</th>
            <th scope="col">Role</th>
            <th scope="col">Pipelines</th>
            <th scope="col">Chunks</th>
            <th scope="col">Last sign-in</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((u) => (
            <tr key={u.id} data-testid="admin-user-row">
              <th scope="row" data-label="Email">
                {u.email}
                {u.id === selfId && <span class="muted"> (you)</span>}
              </th>
              <td data-label="Tier">
                <select
                  class="admin-tier"
                  aria-label={`Tier of ${u.email}`}
                  value={u.tier}
                  disabled={busy}
                  onChange={(e) => onTier(u, e.currentTarget.value as Tier)}
                >
                  {TIERS.map((t) => (
                    <option key={t.value} value={t.value}>
                      {t.label}
                    </option>
                  ))}
                </select>
              </td>
              <td data-label="Role">
                <Role user={u} />
              </td>
              <td data-label="Pipelines">{formatNumber(u.pipelineCount)}</td>
              <td data-label="Chunks">{formatNumber(u.chunkCount)}</td>
              <td data-label="Last sign-in">
                {u.lastSignInAt ? <TimeAgo at={u.lastSignInAt} /> : <span class="muted">never</span>}
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
      {u.isAdmin ? <span class="badge badge-good">Administrator</span> : <span class="muted">User</span>}
      {u.disabled && <span class="badge badge-bad">Disabled</span>}
    </span>
  );
}

/** The row's buttons, each labelled with the account it acts on. */
function Actions({ user: u, busy, onAction }: { user: AdminUser; busy: boolean; onAction: Props["onAction"] }) {
  const button = (action: UserAction, label: string, danger = false) => (
    <button
      type="button"
      class={`btn btn-small ${danger ? "btn-ghost-danger" : "btn-ghost"}`}
      disabled={busy}
      onClick={() => onAction(u, action)}
      aria-label={`${label}: ${u.email}`}
    >
      {label}
    </button>
  );
  return (
    <>
      {button("reset", "Reset password")}
      {u.isAdmin ? button("revoke", "Remove admin") : button("grant", "Make admin")}
      {u.disabled ? button("enable", "Enable") : button("disable", "Disable", true)}
      {button("delete", "Delete…", true)}
    </>
  );
}
