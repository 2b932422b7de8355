/**
 * The pipeline's OCR language data, typed as a list ("eng, deu"); empty means the server's
 * RAGD_OCR_LANGUAGES. The text is kept as typed, so a comma can be followed by the next name.
 */
import { useState } from "preact/hooks";
import { Field } from "./Field";

/** Names as typed, split on commas, plus signs and spaces; null when none. */
export function parseLanguages(text: string): string[] | null {
  const names = text.split(/[\s,+]+/).filter(Boolean);
  return names.length ? names : null;
}

/** What is wrong with the names, if anything (the server checks the files exist). */
export function checkLanguages(names: string[] | null): string | undefined {
  const bad = names?.find((n) => !/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(n));
  if (bad !== undefined) return `"${bad}" is not a language data name (like eng, deu or chi_sim).`;
  if (names && names.length > 8) return "Use at most 8 languages.";
  if (names && new Set(names).size !== names.length) return "Name each language once.";
  return undefined;
}

interface Props {
  value: string[] | null;
  error: string | undefined;
  onChange: (names: string[] | null) => void;
}

export function OcrLanguagesField({ value, error, onChange }: Props) {
  const [text, setText] = useState((value ?? []).join(", "));
  return (
    <Field
      label="OCR languages"
      error={error}
      hint="For pictures and scanned PDF pages. English (eng) is built in; others need <lang>.traineddata in the data directory's ocr folder. Empty = the server's default."
    >
      {(ids) => (
        <input
          {...ids}
          value={text}
          placeholder="server default"
          onInput={(e) => {
            setText(e.currentTarget.value);
            onChange(parseLanguages(e.currentTarget.value));
          }}
        />
      )}
    </Field>
  );
}
