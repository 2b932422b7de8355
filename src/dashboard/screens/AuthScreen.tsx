/** Sign in and create an account: one form, two modes, switched by the URL. */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { auth } from "../api/endpoints";
import type { User } from "../api/types";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { Logo } from "../components/Logo";
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
  // Sign-up closed: no invitation to a form that can only answer 403.
  const canSignUp = passwords && (methods?.signup ?? true);
  const signup = mode === "signup" && canSignUp;
  useTitle(signup ? "Create account" : "Sign in");
  return (
    <main id="main" class="auth">
      <div class="auth-card card">
        <div class="auth-brand">
          <Logo />
          <p class="muted">Retrieval for your own documents, on your own machine.</p>
        </div>
        {canSignUp && (
          <nav class="segmented" aria-label="Account">
            <a href="#/signin" aria-current={!signup ? "page" : undefined}>
              Sign in
            </a>
            <a href="#/signup" aria-current={signup ? "page" : undefined}>
              Create account
            </a>
          </nav>
        )}
        <h1 class="sr-only">{signup ? "Create an account" : "Sign in to ragd"}</h1>
        {notice && (
          <p class="note note-info" role="status">
            {notice}
          </p>
        )}
        {methods?.oidc && (
          <a class="btn btn-primary btn-block" href={methods.oidc.startUrl}>
            Sign in with {methods.oidc.name}
          </a>
        )}
        {methods?.oidc && passwords && <p class="auth-or muted">or</p>}
        {passwords && <PasswordForm signup={signup} onSignedIn={onSignedIn} />}
        <p class="auth-foot muted">
          {canSignUp && (signup ? "Already have an account? " : "New here? ")}
          {canSignUp && <a href={signup ? "#/signin" : "#/signup"}>{signup ? "Sign in" : "Create an account"}</a>}
          {canSignUp && " · "}
          <a href="/docs">API docs</a>
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
      <Field label="Email" error={fieldError(submit.error, "email")}>
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
        label="Password"
        hint={signup ? "At least 8 characters." : undefined}
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
        {submit.busy ? "One moment…" : signup ? "Create account" : "Sign in"}
      </button>
    </form>
  );
}
