/**
 * The pipeline's `language` (docs/API.md, Languages): `auto`, or one of the languages the
 * server lists, named in the dashboard's language. A pipeline made before languages shows
 * `legacy` until it is set to another. A change applies at the next re-index.
 */
import { languages } from "../api/endpoints";
import { t } from "../i18n";
import { languageName } from "../lib/format";
import { useLoad } from "../lib/hooks";
import { Field } from "./Field";

interface Props {
  value: string;
  error?: string;
  onChange: (v: string) => void;
}

export function LanguagePicker({ value, error, onChange }: Props) {
  const list = useLoad(languages, []);
  const codes = (list.data?.languages ?? []).map((l) => l.code);
  const named = codes.map((code) => [code, languageName(code)] as const).sort((a, b) => a[1].localeCompare(b[1]));
  return (
    <Field label={t("language.label")} error={error} hint={t("language.hint")}>
      {(ids) => (
        <select {...ids} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="auto">{t("language.auto")}</option>
          {value === "legacy" && <option value="legacy">{t("language.legacy")}</option>}
          {!codes.includes(value) && value !== "auto" && value !== "legacy" && <option value={value}>{value}</option>}
          {named.map(([code, name]) => (
            <option value={code}>{`${name} (${code})`}</option>
          ))}
        </select>
      )}
    </Field>
  );
}
