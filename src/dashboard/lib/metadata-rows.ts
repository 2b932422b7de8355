/**
 * Metadata as editable rows (key, type, value as typed) and back, for the source
 * metadata editor and the playground's filter builder. The server checks the rules
 * (docs/API.md, "Metadata and external ids"); this only turns text into JSON values.
 */
import { type Key, t } from "../i18n";

export type ValueType = "text" | "number" | "boolean" | "list";

export interface MetaRow {
  key: string;
  type: ValueType;
  value: string;
}

export const VALUE_TYPES: [ValueType, Key][] = [
  ["text", "meta.typeText"],
  ["number", "meta.typeNumber"],
  ["boolean", "meta.typeBoolean"],
  ["list", "meta.typeList"],
];

/** Rows for a stored metadata object, in key order as stored. */
export function toRows(meta: Record<string, unknown>): MetaRow[] {
  return Object.entries(meta).map(([key, v]) => {
    if (Array.isArray(v)) return { key, type: "list", value: v.join(", ") };
    if (typeof v === "number") return { key, type: "number", value: String(v) };
    if (typeof v === "boolean") return { key, type: "boolean", value: String(v) };
    return { key, type: "text", value: String(v) };
  });
}

/** One row's value as JSON, or an error sentence naming the row. */
export function parseValue(row: MetaRow): { value: unknown } | { error: string } {
  const name = row.key.trim() || t("meta.noKeyRow");
  if (row.type === "number") {
    const n = Number(row.value.trim());
    return row.value.trim() !== "" && Number.isFinite(n) ? { value: n } : { error: t("meta.notNumber", { name }) };
  }
  if (row.type === "boolean") return { value: row.value === "true" };
  if (row.type === "list")
    return {
      value: row.value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    };
  return { value: row.value };
}

/** The metadata object the rows describe; blank rows are skipped. */
export function fromRows(rows: MetaRow[]): { metadata: Record<string, unknown> } | { error: string } {
  const metadata: Record<string, unknown> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (!key && !row.value.trim()) continue;
    if (!key) return { error: t("meta.needsKey") };
    if (Object.hasOwn(metadata, key)) return { error: t("meta.twice", { name: key }) };
    const parsed = parseValue(row);
    if ("error" in parsed) return parsed;
    metadata[key] = parsed.value;
  }
  return { metadata };
}
