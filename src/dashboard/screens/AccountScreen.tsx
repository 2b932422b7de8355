/** Who you are, your tier and what it allows, and signing out. */
import { PasswordForm } from "../components/PasswordForm";
import { TierBadge } from "../components/TierBadge";
import { formatDate } from "../lib/format";
import { useTitle } from "../lib/hooks";
import { NEXT_TIER, pipelineLimit, useApp } from "../lib/session";

/** The account page. */
export function AccountScreen() {
  const { user, signOut } = useApp();
  useTitle("Account");
  const limit = pipelineLimit(user);
  return (
    <>
      <div class="page-head">
        <h1>Account</h1>
      </div>
      <section class="card" aria-labelledby="acct-h">
        <h2 id="acct-h" class="sr-only">
          Your account
        </h2>
        <dl class="facts">
          <div>
            <dt>Email</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>Tier</dt>
            <dd>
              <TierBadge tier={user.tier} />
            </dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{user.isAdmin ? <span class="badge badge-good">Administrator</span> : "User"}</dd>
          </div>
          <div>
            <dt>Pipelines allowed</dt>
            <dd>{limit !== null ? limit : user.isAdmin ? "No limit (administrator)" : "No limit"}</dd>
          </div>
          <div>
            <dt>Member since</dt>
            <dd>{formatDate(user.createdAt)}</dd>
          </div>
        </dl>
        {user.isAdmin && (
          <p class="muted">
            As an administrator you manage every account on the <a href="#/admin">Admin</a> screen.
          </p>
        )}
        {!user.isAdmin && user.tier !== "unlimited" && (
          <p class="muted">
            An administrator can change your tier on the server with{" "}
            <code>
              ragd user set-tier --email {user.email} --tier {NEXT_TIER[user.tier]}
            </code>
            .
          </p>
        )}
        <button type="button" class="btn" onClick={() => void signOut()}>
          Sign out
        </button>
      </section>
      <section class="card" aria-labelledby="pw-h">
        <h2 id="pw-h">Password</h2>
        {user.mustChangePassword && (
          <p class="note note-warn" role="alert">
            An administrator reset your password. Choose one of your own: the temporary password is known to them.
          </p>
        )}
        <PasswordForm />
      </section>
    </>
  );
}
