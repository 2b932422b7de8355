/**
 * The Admin screen's people section: "Add a user" (an account with a password, or an
 * invitation link shown once, since ragd sends no mail) and the invitations with their
 * status, each pending one revocable (docs/API.md, Invitations).
 */
import { useState } from "preact/hooks";
import { admin } from "../api/endpoints";
import type { Invitation, InvitationCreated } from "../api/types";
import { AdminUserForm } from "../components/AdminUserForm";
import { ErrorNote } from "../components/ErrorNote";
import { InvitationTable } from "../components/InvitationTable";
import { SecretOnceDialog } from "../components/SecretOnceDialog";
import { t } from "../i18n";
import { formatDate } from "../lib/format";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";

/** The link as the administrator's browser reaches this dashboard: what they will hand over. */
export const inviteLink = (token: string) => `${location.origin}${location.pathname}#/invite/${token}`;

export function AdminPeople({ onChanged }: { onChanged: () => unknown }) {
  const { notify } = useApp();
  const invitations = useLoad(() => admin.invitations(), []);
  const [made, setMade] = useState<InvitationCreated | undefined>(undefined);
  const refresh = () => Promise.all([invitations.reload(), onChanged()]);
  const revoke = useAction(async (i: Invitation) => {
    await admin.revokeInvitation(i.id);
    notify(t("invitations.doneRevoke", { email: i.email }));
    await refresh();
  });
  const list = invitations.data?.data ?? [];
  return (
    <>
      <section class="stack-sm" aria-labelledby="admin-add-h">
        <h2 id="admin-add-h">{t("people.title")}</h2>
        <p class="muted">{t("people.text")}</p>
        <AdminUserForm
          onCreated={async (u) => {
            notify(t("people.created", { email: u.email }));
            await refresh();
          }}
          onInvited={async (i) => {
            setMade(i);
            await refresh();
          }}
        />
      </section>
      <section class="stack-sm" aria-labelledby="admin-invitations-h">
        <h2 id="admin-invitations-h">{t("invitations.caption")}</h2>
        <ErrorNote error={invitations.error} context={t("invitations.failed")} />
        <ErrorNote error={revoke.error} context={t("admin.refused")} />
        {invitations.data && list.length === 0 && <p class="muted">{t("invitations.none")}</p>}
        {list.length > 0 && <InvitationTable items={list} busy={revoke.busy} onRevoke={(i) => void revoke.run(i)} />}
      </section>
      {made && (
        <SecretOnceDialog
          title={t("people.linkTitle", { email: made.invitation.email })}
          warning={t("people.linkWarning", { date: formatDate(made.invitation.expiresAt) })}
          label={t("people.linkLabel")}
          id="invitation-link"
          testId="invitation-link"
          secret={inviteLink(made.token)}
          onClose={() => setMade(undefined)}
        />
      )}
    </>
  );
}
