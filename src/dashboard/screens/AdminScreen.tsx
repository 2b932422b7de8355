/**
 * The Admin screen, for administrators only (the route and its nav link are hidden
 * from everyone else, and the API answers them 403): every account with its tier,
 * counts and last sign-in; change a tier, reset a password (the temporary password
 * is shown once), disable or enable, grant or take administration, delete after
 * typing the email; add a user or an invitation (AdminPeople); a backup of the whole
 * server to download; and the audit log.
 * It shows accounts, never their pipelines.
 */
import { useState } from "preact/hooks";
import { admin } from "../api/endpoints";
import type { AdminUser, Tier } from "../api/types";
import { AdminUserTable, type UserAction } from "../components/AdminUserTable";
import { AuditTable } from "../components/AuditTable";
import { BackupButton } from "../components/BackupButton";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { DeleteUserDialog } from "../components/DeleteUserDialog";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { SecretOnceDialog } from "../components/SecretOnceDialog";
import { type Key, rich, t } from "../i18n";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { useApp } from "../lib/session";
import { AdminPeople } from "./AdminPeople";

type Pending = { user: AdminUser; action: "reset" | "delete" };

export function AdminScreen() {
  const { user: me, notify } = useApp();
  useTitle(t("shell.admin"));
  const users = useLoad(() => admin.users(), []);
  const audit = useLoad(() => admin.audit(), []);
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const [temp, setTemp] = useState<{ email: string; password: string } | undefined>(undefined);
  const refresh = () => Promise.all([users.reload(), audit.reload()]);

  const change = useAction(async (u: AdminUser, action: UserAction | "tier", tier?: Tier) => {
    if (action === "tier" && tier) await admin.update(u.id, { tier });
    if (action === "grant" || action === "revoke") await admin.update(u.id, { isAdmin: action === "grant" });
    if (action === "disable" || action === "enable") await admin.setDisabled(u.id, action === "disable");
    notify(t("admin.done", { email: u.email, what: t(DONE[action]) }));
    await refresh();
  });
  const reset = useAction(async (u: AdminUser) => {
    const r = await admin.resetPassword(u.id);
    setPending(undefined);
    setTemp({ email: u.email, password: r.temporaryPassword });
    await refresh();
  });
  const remove = useAction(async (u: AdminUser, typed: string) => {
    await admin.remove(u.id, typed);
    setPending(undefined);
    notify(t("admin.deleted", { email: u.email }));
    await refresh();
  });
  const onAction = (u: AdminUser, action: UserAction) => {
    if (action === "reset" || action === "delete") setPending({ user: u, action });
    else void change.run(u, action);
  };
  const cancel = () => (setPending(undefined), reset.setError(undefined), remove.setError(undefined));

  return (
    <>
      <div class="page-head">
        <h1>{t("shell.admin")}</h1>
      </div>
      <div class="stack">
        <section class="stack-sm" aria-labelledby="admin-users-h">
          <h2 id="admin-users-h">{t("adminUsers.caption")}</h2>
          <p class="muted">{rich("admin.usersText", { command: <code>ragd user …</code> })}</p>
          <ErrorNote error={change.error} context={t("admin.refused")} />
          <ErrorNote error={users.error} context={t("admin.usersFailed")} />
          {!users.data && users.loading && <Loading />}
          {users.data && (
            <AdminUserTable
              items={users.data.data}
              selfId={me.id}
              busy={change.busy}
              onTier={(u, tier) => void change.run(u, "tier", tier)}
              onAction={onAction}
            />
          )}
        </section>
        <AdminPeople onChanged={refresh} />
        <section class="stack-sm" aria-labelledby="admin-backup-h">
          <h2 id="admin-backup-h">{t("admin.backup")}</h2>
          <BackupButton />
        </section>
        <section class="stack-sm" aria-labelledby="admin-audit-h">
          <h2 id="admin-audit-h">{t("audit.caption")}</h2>
          <p class="muted">
            {rich("admin.auditText", {
              link: <a href={admin.auditLinesPath}>{t("admin.auditLink")}</a>,
              command: <code>ragd admin audit</code>,
            })}
          </p>
          <ErrorNote error={audit.error} context={t("admin.auditFailed")} />
          {audit.data?.data.length === 0 && (
            <EmptyState title={t("admin.nothing")}>{t("admin.nothingText")}</EmptyState>
          )}
          {audit.data && audit.data.data.length > 0 && <AuditTable items={audit.data.data} />}
        </section>
      </div>
      {pending?.action === "reset" && (
        <ConfirmDialog
          title={t("admin.resetTitle", { email: pending.user.email })}
          confirmLabel={t("adminUsers.reset")}
          busy={reset.busy}
          error={reset.error}
          onConfirm={() => void reset.run(pending.user)}
          onCancel={cancel}
        >
          <p>{t("admin.resetText")}</p>
        </ConfirmDialog>
      )}
      {pending?.action === "delete" && (
        <DeleteUserDialog
          user={pending.user}
          busy={remove.busy}
          error={remove.error}
          onConfirm={(typed) => void remove.run(pending.user, typed)}
          onCancel={cancel}
        />
      )}
      {temp && (
        <SecretOnceDialog
          title={t("admin.tempTitle", { email: temp.email })}
          warning={t("admin.tempWarning")}
          label={t("admin.tempLabel")}
          id="temp-password"
          testId="temp-password"
          secret={temp.password}
          onClose={() => setTemp(undefined)}
        />
      )}
    </>
  );
}

const DONE: Record<UserAction | "tier", Key> = {
  tier: "admin.doneTier",
  grant: "admin.doneGrant",
  revoke: "admin.doneRevoke",
  disable: "admin.doneDisable",
  enable: "admin.doneEnable",
  reset: "admin.doneReset",
  delete: "admin.doneDelete",
};
