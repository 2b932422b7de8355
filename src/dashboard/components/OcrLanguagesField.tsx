/**
 * The pipeline's OCR language data, typed as a list ("eng, deu"); empty means the server's
 * RAGD_OCR_LANGUAGES. The text is kept as typed, so a comma can be followed by the next name.
 */
import { useState } from "preact/hooks";
import { ocrLanguages } from "../api/endpoints";
import type { OcrLanguages } from "../api/types";
import { t } from "../i18n";
import { useLoad } from "../lib/hooks";
import { Field } from "./Field";

/** Names as typed, split on commas, plus signs and spaces; null when none. */
export function parseLanguages(text: string): string[] | null {
  const names = text.split(/[\s,+]+/).filter(Boolean);
  return names.length ? names : null;
}

/** What is wrong with the names, if anything (the server checks the files exist). */
export function checkLanguages(names: string[] | null): string | undefined {
  const bad = names?.find((n) => !/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(n));
  if (bad !== undefined) return t("ocr.badName", { name: bad });
  if (names && names.length > 8) return t("ocr.tooMany", { max: 8 });
  if (names && new Set(names).size !== names.length) return t("ocr.twice");
  return undefined;
}

interface Props {
  value: string[] | null;
  error: string | undefined;
  onChange: (names: string[] | null) => void;
}

/** "On this server: English (eng, built in), German (deu)." — or nothing until the list arrives. */
function presentText(present: OcrLanguages | undefined): string {
  if (!present?.languages.length) return "";
  const list = present.languages.map((l) => t(l.builtIn ? "ocr.builtIn" : "ocr.file", { name: l.name, code: l.code }));
  return ` ${t("ocr.present", { list: list.join(", ") })}`;
}

export function OcrLanguagesField({ value, error, onChange }: Props) {
  const [text, setText] = useState((value ?? []).join(", "));
  const present = useLoad(ocrLanguages, []);
  return (
    <Field label={t("ocr.label")} error={error} hint={t("ocr.hint") + presentText(present.data)}>
      {(ids) => (
        <input
          {...ids}
          value={text}
          placeholder={t("ocr.placeholder")}
          onInput={(e) => {
            setText(e.currentTarget.value);
            onChange(parseLanguages(e.currentTarget.value));
          }}
        />
      )}
    </Field>
  );
}
