/** A labelled number input whose empty box is a value of its own (null), not zero. */
import type { ComponentChildren } from "preact";
import { Field } from "./Field";

interface Props {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  suffix?: ComponentChildren;
  /** NaN (a half-typed entry) and null both show an empty box. */
  value: number | null;
  /** Called with the number typed, or null when the box is emptied. */
  onChange: (v: number | null) => void;
  min?: number;
  max?: number;
  step?: number;
  placeholder?: string;
  /** "decimal" where fractions are allowed; whole numbers otherwise. */
  inputMode?: "numeric" | "decimal";
}

export function NumberField({ label, hint, error, suffix, value, onChange, inputMode = "numeric", ...limits }: Props) {
  return (
    <Field label={label} hint={hint} error={error} suffix={suffix}>
      {(ids) => (
        <input
          {...ids}
          {...limits}
          type="number"
          inputMode={inputMode}
          value={value === null || Number.isNaN(value) ? "" : value}
          onInput={(e) => onChange(e.currentTarget.value === "" ? null : Number(e.currentTarget.value))}
        />
      )}
    </Field>
  );
}
