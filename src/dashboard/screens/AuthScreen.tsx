/** Sign in and create an account: one form, two modes, switched by the URL. */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { auth } from "../api/endpoints";
import type { User } from "../api/types";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { Logo } from "../components/Logo";
import { t } from "../i18n";
import { useAction, useLoad, useTitle } from "../lib/hooks";

interface Props {
  mode: "signin" | "signup";
  /** Why the user is here, e.g. after signing out. */
  notice?: string;
  onSignedIn: (user: User) => void;
}

/** The first screen a new user sees. */
export function AuthScreen({ mode, notice, onSignedIn }: Props) {
  const methods = useLoad(() => auth.methods(), []).data;
  // Until the server says otherwise, the password form shows (the common case).
  const passwords = methods?.password ?? true;
  // Sign-up closed (or single sign-on on): no invitation to a form that can only answer 403.
  const canSignUp = passwords && (methods?.passwordSignup ?? true);
  // A new install says who becomes the administrator, when an account can be made here
  // (a password sign-up, or a first single sign-on), and opens on sign-up: there is no
  // account to sign in to.
  const firstAccount = methods?.firstAccount === true && methods.signup && (methods.password || methods.oidc !== null);
  const signup = (mode === "signup" || firstAccount) && canSignUp;
  // Sign-in and sign-up side by side, except while there is no account to sign in to.
  const switchable = canSignUp && !firstAccount;
  useTitle(signup ? t("auth.createAccount") : t("auth.signIn"));
  return (
    <main id="main" class="auth">
      <div class="auth-card card">
        <div class="auth-brand">
          <Logo />
          <p class="muted">{t("auth.tagline")}</p>
        </div>
        {switchable && (
          <nav class="segmented" aria-label={t("auth.account")}>
            <a href="#/signin" aria-current={!signup ? "page" : undefined}>
              {t("auth.signIn")}
            </a>
            <a href="#/signup" aria-current={signup ? "page" : undefined}>
              {t("auth.createAccount")}
            </a>
          </nav>
        )}
        <h1 class="sr-only">{signup ? t("auth.createAnAccount") : t("auth.signInTo")}</h1>
        {firstAccount && (
          <p class="note note-info" role="status" data-testid="first-account">
            {t("auth.firstAccount")}
          </p>
        )}
        {notice && (
          <p class="note note-info" role="status">
            {notice}
          </p>
        )}
        {methods?.oidc && (
          <a class="btn btn-primary btn-block" href={methods.oidc.startUrl}>
            {t("auth.signInWith", { name: methods.oidc.name })}
          </a>
        )}
        {methods?.oidc && passwords && <p class="auth-or muted">{t("auth.or")}</p>}
        {passwords && <PasswordForm signup={signup} onSignedIn={onSignedIn} />}
        <p class="auth-foot muted">
          {switchable && `${signup ? t("auth.haveAccount") : t("auth.newHere")} `}
          {switchable && (
            <a href={signup ? "#/signin" : "#/signup"}>{signup ? t("auth.signIn") : t("auth.createAnAccount")}</a>
          )}
          {switchable && " · "}
          <a href="/docs">{t("common.apiDocs")}</a>
        </p>
        <p class="auth-lang">
          <LanguageSwitch />
        </p>
      </div>
    </main>
  );
}

/** Email and password: sign in, or create an account. */
function PasswordForm({ signup, onSignedIn }: { signup: boolean; onSignedIn: (user: User) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const submit = useAction(async () => {
    const { user } = signup ? await auth.signup(email.trim(), password) : await auth.login(email.trim(), password);
    onSignedIn(user);
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit.run();
      }}
    >
      <Field label={t("common.email")} error={fieldError(submit.error, "email")}>
        {(ids) => (
          <input
            {...ids}
            type="email"
            autoComplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field
        label={t("common.password")}
        hint={signup ? t("auth.passwordHint") : undefined}
        error={fieldError(submit.error, "password")}
      >
        {(ids) => (
          <input
            {...ids}
            type="password"
            autoComplete={signup ? "new-password" : "current-password"}
            required
            minLength={signup ? 8 : undefined}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        )}
      </Field>
      <ErrorNote error={submit.error} />
      <button type="submit" class="btn btn-primary btn-block" disabled={submit.busy}>
        {submit.busy ? t("auth.busy") : signup ? t("auth.createAccount") : t("auth.signIn")}
      </button>
    </form>
  );
}
