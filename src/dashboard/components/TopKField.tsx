/** How many results a search returns: a whole number kept within 1 to 100, as the API allows. */
import { Field } from "./Field";

interface Props {
  label: string;
  value: number;
  onChange: (topK: number) => void;
  hint?: string;
  class?: string;
}

/** An empty or out-of-range entry becomes the nearest allowed number, so a search can always be sent. */
export function TopKField({ label, value, onChange, hint, class: cls }: Props) {
  return (
    <Field label={label} hint={hint} class={cls}>
      {(ids) => (
        <input
          {...ids}
          type="number"
          min={1}
          max={100}
          value={value}
          onInput={(e) => onChange(Math.max(1, Math.min(100, Number(e.currentTarget.value) || 1)))}
        />
      )}
    </Field>
  );
}
