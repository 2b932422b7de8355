/** A form field: label, control, hint and error, wired together for screen readers. */
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

/** The ids a control must carry to be tied to its label, hint and error. */
export type FieldIds = { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean };

interface Props {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  /** Renders the control with the ids it must carry. */
  children: (ids: FieldIds) => ComponentChildren;
  /** Text after the control, such as a unit. */
  suffix?: ComponentChildren;
  /** Extra class on the wrapper, e.g. "field-narrow" in an inline form. */
  class?: string;
}

/** Label above, control, then hint or error; the error replaces nothing, it adds. */
export function Field({ label, hint, error, children, suffix, class: cls }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errId = `${id}-err`;
  const described = [hint ? hintId : "", error ? errId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${error ? " field-invalid" : ""}${cls ? ` ${cls}` : ""}`}>
      <label for={id}>{label}</label>
      <div class="field-control">
        {children({ id, "aria-describedby": described, "aria-invalid": error ? true : undefined })}
        {suffix && <span class="field-suffix">{suffix}</span>}
      </div>
      {hint && (
        <p id={hintId} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errId} class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
