/** Changing one's own password: the current one, then the new one (8 characters or more). */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { auth } from "../api/endpoints";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { useApp } from "../lib/session";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";

/** The form; on success the other sessions of the user have ended and the form clears. */
export function PasswordForm() {
  const { notify, setUser } = useApp();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const save = useAction(async () => {
    const { user } = await auth.changePassword(current, next);
    setCurrent("");
    setNext("");
    setUser(user);
    notify(t("password.changed"));
  });
  const currentError = fieldError(save.error, "currentPassword");
  const nextError = fieldError(save.error, "newPassword");
  return (
    <form
      class="stack-sm"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <Field label={t("password.current")} error={currentError}>
        {(ids) => (
          <input
            {...ids}
            type="password"
            autoComplete="current-password"
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
            required
          />
        )}
      </Field>
      <Field label={t("password.new")} hint={t("auth.passwordHint")} error={nextError}>
        {(ids) => (
          <input
            {...ids}
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
            required
          />
        )}
      </Field>
      {!currentError && !nextError && <ErrorNote error={save.error} context={t("password.failed")} />}
      <div>
        <button type="submit" class="btn btn-primary" disabled={save.busy}>
          {save.busy ? t("common.saving") : t("password.change")}
        </button>
      </div>
    </form>
  );
}
