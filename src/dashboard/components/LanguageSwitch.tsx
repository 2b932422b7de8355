/** The language menu in the header: each language named in itself; the choice is remembered. */
import { LOCALE_NAMES, LOCALES, type Locale, setLocale, t, useLocale } from "../i18n";

export function LanguageSwitch() {
  const current = useLocale();
  return (
    <select
      class="lang-switch"
      aria-label={t("lang.label")}
      value={current}
      onChange={(e) => setLocale(e.currentTarget.value as Locale)}
    >
      {LOCALES.map((l) => (
        <option key={l} value={l} lang={l}>
          {LOCALE_NAMES[l]}
        </option>
      ))}
    </select>
  );
}
