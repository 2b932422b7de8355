/**
 * `#/invite/<token>`: the invited person's page (docs/API.md, Invitations). It asks
 * what the link is for, then lets them choose a password, which creates the account
 * and signs them in; sign-up being closed does not matter. A used, expired, revoked or
 * unknown link gets a sentence saying so and a way to sign in.
 */
import { useState } from "preact/hooks";
import { type ApiError, fieldError } from "../api/client";
import { auth } from "../api/endpoints";
import type { User } from "../api/types";
import { Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { Logo } from "../components/Logo";
import { type Key, t } from "../i18n";
import { useAction, useLoad, useTitle } from "../lib/hooks";

/** Why a link cannot be used, by the API's error code. */
const REFUSED: Record<string, Key> = {
  invitation_used: "invite.used",
  invitation_expired: "invite.expired",
  invitation_revoked: "invite.revoked",
  invalid_request: "invite.unknown",
};

const refusal = (e: ApiError | undefined): Key | undefined => (e ? REFUSED[e.code] : undefined);

export function InviteScreen({ token, onSignedIn }: { token: string; onSignedIn: (user: User) => void }) {
  useTitle(t("invite.title"));
  const info = useLoad(() => auth.checkInvitation(token), [token]);
  const [password, setPassword] = useState("");
  const accept = useAction(async () => onSignedIn((await auth.acceptInvitation(token, password)).user));
  const refused = refusal(info.error) ?? refusal(accept.error);
  return (
    <main id="main" class="auth">
      <div class="auth-card card">
        <div class="auth-brand">
          <Logo />
        </div>
        <h1>{t("invite.title")}</h1>
        {!info.data && info.loading && <Loading />}
        {refused && (
          <>
            <p class="note note-error" role="alert" data-testid="invite-refused">
              {t(refused)}
            </p>
            <a class="btn btn-primary btn-block" href="#/signin">
              {t("invite.toSignIn")}
            </a>
          </>
        )}
        {!refused && info.error && <ErrorNote error={info.error} />}
        {!refused && info.data && (
          <form onSubmit={(e) => (e.preventDefault(), void accept.run())}>
            <p>{t("invite.text", { email: info.data.email })}</p>
            <Field
              label={t("invite.password")}
              hint={t("auth.passwordHint")}
              error={fieldError(accept.error, "password")}
            >
              {(ids) => (
                <input
                  {...ids}
                  type="password"
                  autoComplete="new-password"
                  required
                  minLength={8}
                  value={password}
                  onInput={(e) => setPassword(e.currentTarget.value)}
                />
              )}
            </Field>
            <ErrorNote error={accept.error} />
            <button type="submit" class="btn btn-primary btn-block" disabled={accept.busy}>
              {accept.busy ? t("auth.busy") : t("invite.submit")}
            </button>
          </form>
        )}
        <p class="auth-lang">
          <LanguageSwitch />
        </p>
      </div>
    </main>
  );
}
