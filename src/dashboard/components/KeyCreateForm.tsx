/**
 * The form that creates a key: its name, what it may do (scopes) and, optionally,
 * the day it stops working (docs/API.md, API keys).
 */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import type { KeyInput } from "../api/endpoints";
import type { ApiKeyCreated } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";

const SCOPES = [
  { value: "query", label: "keyForm.query", hint: "keyForm.queryHint" },
  { value: "ingest", label: "keyForm.ingest", hint: "keyForm.ingestHint" },
  { value: "tokens", label: "keyForm.tokens", hint: "keyForm.tokensHint" },
] as const;

/** The filter box's text as JSON: undefined when empty, null when it is not an object. */
function parseFilter(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** Tomorrow as yyyy-mm-dd in local time: the earliest expiry the date picker offers. */
function tomorrow(): string {
  const d = new Date(Date.now() + 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** A chosen day (yyyy-mm-dd) as the end of that day in the browser's time zone, in ISO 8601. */
export const endOfDay = (day: string): string => new Date(`${day}T23:59:59`).toISOString();

export function KeyCreateForm({
  create,
  onCreated,
  scopes: offered,
  queryHint,
}: {
  create: (input: KeyInput) => Promise<ApiKeyCreated>;
  onCreated: (k: ApiKeyCreated) => void | Promise<void>;
  /** The scopes to offer (default: all). */
  scopes?: readonly string[];
  /** What the query scope does here, when not the query endpoint (a knowledge base's key). */
  queryHint?: string;
}) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["query"]);
  const [expires, setExpires] = useState("");
  const [filterText, setFilterText] = useState("");
  const filter = parseFilter(filterText);
  const submit = useAction(async () => {
    const k = await create({
      name: name.trim(),
      scopes,
      ...(expires ? { expiresAt: endOfDay(expires) } : {}),
      ...(filter ? { filter } : {}),
    });
    setName("");
    setExpires("");
    setFilterText("");
    await onCreated(k);
  });
  const toggle = (scope: string, on: boolean) =>
    setScopes((s) => (on ? [...s.filter((x) => x !== scope), scope] : s.filter((x) => x !== scope)));
  return (
    <form class="form" onSubmit={(e) => (e.preventDefault(), void submit.run())}>
      <Field label={t("keyForm.name")} hint={t("keyForm.nameHint")} error={fieldError(submit.error, "name")}>
        {(ids) => (
          <input {...ids} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        )}
      </Field>
      <fieldset>
        <legend>{t("keyForm.scopes")}</legend>
        {SCOPES.filter((s) => !offered || offered.includes(s.value)).map((s) => (
          <label class="check" key={s.value}>
            <input
              type="checkbox"
              name="scopes"
              value={s.value}
              checked={scopes.includes(s.value)}
              onChange={(e) => toggle(s.value, e.currentTarget.checked)}
            />
            <span>
              <strong>{t(s.label)}</strong>: {s.value === "query" && queryHint ? queryHint : t(s.hint)}
            </span>
          </label>
        ))}
        {scopes.length === 0 && <p class="field-error">{t("keyForm.atLeastOne")}</p>}
        {fieldError(submit.error, "scopes") && <p class="field-error">{fieldError(submit.error, "scopes")}</p>}
      </fieldset>
      <Field label={t("keyForm.expires")} hint={t("keyForm.expiresHint")} error={fieldError(submit.error, "expiresAt")}>
        {(ids) => (
          <input
            {...ids}
            type="date"
            min={tomorrow()}
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field
        label={t("keyForm.filter")}
        hint={t("keyForm.filterHint")}
        error={filter === null ? t("keyForm.badFilter") : fieldError(submit.error, "filter")}
      >
        {(ids) => (
          <textarea
            {...ids}
            rows={2}
            placeholder='{"team": "support"}'
            value={filterText}
            onInput={(e) => setFilterText(e.currentTarget.value)}
          />
        )}
      </Field>
      <div>
        <button
          type="submit"
          class="btn btn-primary"
          disabled={submit.busy || !name.trim() || scopes.length === 0 || filter === null}
        >
          {submit.busy ? t("common.creating") : t("keyForm.create")}
        </button>
      </div>
      <ErrorNote error={submit.error} context={t("keyForm.failed")} />
    </form>
  );
}
