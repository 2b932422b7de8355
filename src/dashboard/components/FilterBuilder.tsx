/**
 * The playground's metadata filter: one condition per row (key, operator, typed
 * value), all of which must hold. It builds the `filter.metadata` object the query
 * endpoint takes (docs/API.md, "Filtering on metadata"); the server judges it.
 */
import { type Key, t } from "../i18n";
import { type MetaRow, parseValue } from "../lib/metadata-rows";
import { MetadataRowsInput } from "./MetadataRowsInput";

export const FILTER_OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
const OP_LABEL: Record<FilterOperator, string | Key> = {
  $eq: "=",
  $ne: "≠",
  $gt: ">",
  $gte: "≥",
  $lt: "<",
  $lte: "≤",
  $in: "filter.anyOf",
  $nin: "filter.noneOf",
  $exists: "filter.exists",
};
const opLabel = (op: FilterOperator) => (OP_LABEL[op].length > 1 ? t(OP_LABEL[op] as Key) : OP_LABEL[op]);

export interface FilterRow extends MetaRow {
  op: FilterOperator;
}

export const blankFilterRow = (): FilterRow => ({ key: "", op: "$eq", type: "text", value: "" });

/** The filter.metadata object of the rows (blank rows skipped), or an error sentence. */
export function filterOf(rows: FilterRow[]): { metadata?: Record<string, unknown> } | { error: string } {
  const out: Record<string, Record<string, unknown>> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (!key) continue;
    let operand: unknown;
    if (row.op === "$exists") operand = row.value !== "false";
    else {
      // "any of" / "none of" take a list of values of the row's type.
      const many = row.op === "$in" || row.op === "$nin";
      const parts = many ? row.value.split(",").map((v) => v.trim()) : [row.value];
      const values = [];
      for (const part of parts) {
        const parsed = parseValue({ ...row, type: row.type === "list" ? "text" : row.type, value: part });
        if ("error" in parsed) return parsed;
        values.push(parsed.value);
      }
      operand = many ? values : values[0];
    }
    out[key] = { ...(out[key] ?? {}), [row.op]: operand };
  }
  return Object.keys(out).length ? { metadata: out } : {};
}

export function FilterBuilder({ rows, onChange }: { rows: FilterRow[]; onChange: (rows: FilterRow[]) => void }) {
  return (
    <MetadataRowsInput
      label={t("filter.metadata")}
      rows={rows}
      onChange={onChange}
      blank={blankFilterRow}
      middle={(row, set) => (
        <select
          aria-label={t("filter.operator")}
          value={row.op}
          onChange={(e) => set({ op: e.currentTarget.value as FilterOperator })}
        >
          {FILTER_OPERATORS.map((op) => (
            <option value={op} key={op}>
              {opLabel(op)}
            </option>
          ))}
        </select>
      )}
    />
  );
}
