/**
 * The fields of a Git source in the add-source form (docs/API.md, "Git sources"): the
 * clone URL, the branch, and the credentials, which the server keeps apart and never
 * shows again (the token is a password field, and the form clears it once added).
 */
import { type ApiError, fieldError } from "../api/client";
import type { NewSource } from "../api/endpoints";
import { t } from "../i18n";
import { Field } from "./Field";

export interface GitState {
  url: string;
  branch: string;
  username: string;
  token: string;
}

export const NO_GIT: GitState = { url: "", branch: "", username: "", token: "" };

/** The create body of a Git source from the form's state; `name` as given, else the URL's host and path. */
export function gitBody(s: GitState, name: string): NewSource {
  const url = s.url.trim();
  let shown = url;
  try {
    const u = new URL(url);
    shown = `${u.host}${u.pathname}`;
  } catch {}
  const body: NewSource = { type: "git", name: name || shown, url };
  if (s.branch.trim()) body.branch = s.branch.trim();
  if (s.username.trim()) body.username = s.username.trim();
  if (s.token) body.token = s.token;
  return body;
}

interface Props {
  value: GitState;
  onChange: (v: GitState) => void;
  error: ApiError | undefined;
}

export function GitInput({ value: v, onChange, error }: Props) {
  const text = (key: keyof GitState, extra: Record<string, unknown> = {}) => ({
    value: v[key],
    onInput: (e: { currentTarget: HTMLInputElement }) => onChange({ ...v, [key]: e.currentTarget.value }),
    ...extra,
  });
  return (
    <div class="stack">
      <Field label={t("git.url")} hint={t("git.urlHint")} error={fieldError(error, "url")}>
        {(ids) => <input {...ids} {...text("url", { type: "url", required: true, placeholder: "https://" })} />}
      </Field>
      <Field label={t("git.branch")} hint={t("git.branchHint")} error={fieldError(error, "branch")}>
        {(ids) => <input {...ids} {...text("branch", { maxLength: 200 })} />}
      </Field>
      <Field label={t("git.username")} error={fieldError(error, "username")}>
        {(ids) => <input {...ids} {...text("username", { autocomplete: "off", maxLength: 1000 })} />}
      </Field>
      <Field label={t("git.token")} hint={t("git.tokenHint")} error={fieldError(error, "token")}>
        {(ids) => <input {...ids} {...text("token", { type: "password", autocomplete: "off", maxLength: 1000 })} />}
      </Field>
    </div>
  );
}
