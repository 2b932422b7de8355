/** Editable key / type / value rows (one metadata entry or filter condition per row). */
import type { ComponentChildren } from "preact";
import { t } from "../i18n";
import { type MetaRow, VALUE_TYPES } from "../lib/metadata-rows";

interface Props<R extends MetaRow> {
  rows: R[];
  onChange: (rows: R[]) => void;
  /** A blank row to add. */
  blank: () => R;
  /** Extra control between key and type (the filter's operator). */
  middle?: (row: R, set: (patch: Partial<R>) => void) => ComponentChildren;
  label: string;
}

export function MetadataRowsInput<R extends MetaRow>({ rows, onChange, blank, middle, label }: Props<R>) {
  const set = (i: number) => (patch: Partial<R>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset class="meta-rows">
      <legend class="label">{label}</legend>
      {rows.map((row, i) => (
        <div class="meta-row" key={i}>
          <input
            aria-label={t("meta.keyN", { n: i + 1 })}
            placeholder={t("meta.key")}
            value={row.key}
            onInput={(e) => set(i)({ key: e.currentTarget.value } as Partial<R>)}
          />
          {middle?.(row, set(i))}
          <select
            aria-label={t("meta.typeN", { n: i + 1 })}
            value={row.type}
            onChange={(e) => set(i)({ type: e.currentTarget.value as MetaRow["type"] } as Partial<R>)}
          >
            {VALUE_TYPES.map(([v, text]) => (
              <option value={v} key={v}>
                {t(text)}
              </option>
            ))}
          </select>
          {row.type === "boolean" ? (
            <select
              aria-label={t("meta.valueN", { n: i + 1 })}
              value={row.value === "true" ? "true" : "false"}
              onChange={(e) => set(i)({ value: e.currentTarget.value } as Partial<R>)}
            >
              <option value="true">{t("meta.yes")}</option>
              <option value="false">{t("meta.no")}</option>
            </select>
          ) : (
            <input
              aria-label={t("meta.valueN", { n: i + 1 })}
              placeholder={row.type === "list" ? "a, b, c" : t("meta.value")}
              inputMode={row.type === "number" ? "decimal" : undefined}
              value={row.value}
              onInput={(e) => set(i)({ value: e.currentTarget.value } as Partial<R>)}
            />
          )}
          <button
            type="button"
            class="btn btn-small btn-ghost-danger"
            aria-label={t("meta.removeN", { n: i + 1 })}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" class="btn btn-small" onClick={() => onChange([...rows, blank()])}>
        {t("meta.add")}
      </button>
    </fieldset>
  );
}
