/**
 * The Admin screen's "Add a user" form (docs/API.md, Administration): an email, a
 * tier and the administrator flag, and either a password (the account is made now)
 * or none (an invitation link valid for the chosen number of days is made instead).
 */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { admin, type NewUser } from "../api/endpoints";
import type { AdminUser, InvitationCreated, Tier } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { TIER_NAMES } from "./TierBadge";

const TIERS: Tier[] = ["free", "pro", "unlimited"];
/** How long a link may stay valid, in days: the server allows 1 hour to 30 days. */
const DAYS = [1, 3, 7, 30];

interface Props {
  onCreated: (u: AdminUser) => void | Promise<void>;
  onInvited: (i: InvitationCreated) => void | Promise<void>;
}

export function AdminUserForm({ onCreated, onInvited }: Props) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [tier, setTier] = useState<Tier | "">("");
  const [isAdmin, setIsAdmin] = useState(false);
  const [days, setDays] = useState(3);
  const invite = password === "";
  const submit = useAction(async () => {
    const body: NewUser = { email: email.trim(), isAdmin, ...(tier ? { tier } : {}) };
    const made = await admin.createUser(invite ? { ...body, expiresIn: days * 24 } : { ...body, password });
    setEmail("");
    setPassword("");
    setIsAdmin(false);
    if ("user" in made) await onCreated(made.user);
    else await onInvited(made);
  });
  return (
    <form class="form" onSubmit={(e) => (e.preventDefault(), void submit.run())}>
      <Field label={t("common.email")} error={fieldError(submit.error, "email")}>
        {(ids) => (
          <input {...ids} type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        )}
      </Field>
      <Field label={t("people.password")} hint={t("people.passwordHint")} error={fieldError(submit.error, "password")}>
        {(ids) => (
          <input
            {...ids}
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t("adminUsers.tier")} error={fieldError(submit.error, "tier")}>
        {(ids) => (
          <select {...ids} value={tier} onChange={(e) => setTier(e.currentTarget.value as Tier | "")}>
            <option value="">{t("people.tierDefault")}</option>
            {TIERS.map((x) => (
              <option key={x} value={x}>
                {t(TIER_NAMES[x])}
              </option>
            ))}
          </select>
        )}
      </Field>
      {invite && (
        <Field label={t("people.expires")} error={fieldError(submit.error, "expiresIn")}>
          {(ids) => (
            <select {...ids} value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
              {DAYS.map((d) => (
                <option key={d} value={String(d)}>
                  {t("people.days", { count: d })}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <label class="check">
        <input type="checkbox" checked={isAdmin} onChange={(e) => setIsAdmin(e.currentTarget.checked)} />
        <span>{t("adminUsers.administrator")}</span>
      </label>
      <ErrorNote error={submit.error} context={t("people.refused")} />
      <div>
        <button type="submit" class="btn btn-primary" disabled={submit.busy || !email.trim()}>
          {submit.busy ? t("common.creating") : invite ? t("people.invite") : t("people.create")}
        </button>
      </div>
    </form>
  );
}
