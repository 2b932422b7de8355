/**
 * A row of choices that looks like a segmented control but is a set of native
 * radio buttons, so arrow keys, Tab and screen readers behave as they should.
 */
import { useId } from "preact/hooks";

interface Props<T extends string> {
  legend: string;
  value: T;
  options: [T, string][];
  onChange: (v: T) => void;
}

/** One fieldset of radios; the legend is read out but not shown. */
export function Segmented<T extends string>({ legend, value, options, onChange }: Props<T>) {
  const name = useId();
  return (
    <fieldset class="segmented">
      <legend class="sr-only">{legend}</legend>
      {options.map(([v, label]) => (
        <label key={v}>
          <input
            type="radio"
            class="segmented-input"
            name={name}
            value={v}
            checked={value === v}
            onChange={() => onChange(v)}
          />
          <span>{label}</span>
        </label>
      ))}
    </fieldset>
  );
}
