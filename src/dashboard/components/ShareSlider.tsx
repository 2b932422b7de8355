/** A slider for a share from 0 to 1 in steps of 0.05, as the query API takes the blend and the diversity. */
import type { FieldIds } from "./Field";

export function ShareSlider({ value, onChange, ...ids }: FieldIds & { value: number; onChange: (v: number) => void }) {
  return (
    <input
      {...ids}
      type="range"
      min={0}
      max={1}
      step={0.05}
      value={value}
      onInput={(e) => onChange(Number(e.currentTarget.value))}
    />
  );
}
