/** Who you are, your tier and what it allows, and signing out. */
import { PasswordForm } from "../components/PasswordForm";
import { TierBadge } from "../components/TierBadge";
import { rich, t } from "../i18n";
import { formatDate, formatNumber } from "../lib/format";
import { useTitle } from "../lib/hooks";
import { NEXT_TIER, pipelineLimit, useApp } from "../lib/session";

/** The account page. */
export function AccountScreen() {
  const { user, signOut } = useApp();
  useTitle(t("account.title"));
  const limit = pipelineLimit(user);
  return (
    <>
      <div class="page-head">
        <h1>{t("account.title")}</h1>
      </div>
      <section class="card" aria-labelledby="acct-h">
        <h2 id="acct-h" class="sr-only">
          {t("account.yours")}
        </h2>
        <dl class="facts">
          <div>
            <dt>{t("common.email")}</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>{t("adminUsers.tier")}</dt>
            <dd>
              <TierBadge tier={user.tier} />
            </dd>
          </div>
          <div>
            <dt>{t("adminUsers.role")}</dt>
            <dd>
              {user.isAdmin ? (
                <span class="badge badge-good">{t("adminUsers.administrator")}</span>
              ) : (
                t("adminUsers.user")
              )}
            </dd>
          </div>
          <div>
            <dt>{t("account.allowed")}</dt>
            <dd>
              {limit !== null ? formatNumber(limit) : user.isAdmin ? t("account.noLimitAdmin") : t("account.noLimit")}
            </dd>
          </div>
          <div>
            <dt>{t("account.since")}</dt>
            <dd>{formatDate(user.createdAt)}</dd>
          </div>
        </dl>
        {user.isAdmin && (
          <p class="muted">{rich("account.adminNote", { link: <a href="#/admin">{t("shell.admin")}</a> })}</p>
        )}
        {!user.isAdmin && user.tier !== "unlimited" && (
          <p class="muted">
            {rich("account.tierNote", {
              command: <code>{`ragd user set-tier --email ${user.email} --tier ${NEXT_TIER[user.tier]}`}</code>,
            })}
          </p>
        )}
        <button type="button" class="btn" onClick={() => void signOut()}>
          {t("shell.signOut")}
        </button>
      </section>
      <section class="card" aria-labelledby="pw-h">
        <h2 id="pw-h">{t("common.password")}</h2>
        {user.mustChangePassword && (
          <p class="note note-warn" role="alert">
            {t("account.mustChange")}
          </p>
        )}
        <PasswordForm />
      </section>
    </>
  );
}
