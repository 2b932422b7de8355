/** The search box and status filter above a pipeline's sources. */
import type { SourcePage, SourceStatus } from "../api/types";
import { type Key, t } from "../i18n";
import { formatNumber } from "../lib/format";
import { FilterToolbar } from "./FilterToolbar";

const STATUS_OPTIONS: [SourceStatus, Key][] = [
  ["ready", "status.ready"],
  ["processing", "status.processing"],
  ["queued", "status.queued"],
  ["failed", "status.failed"],
  ["awaiting_upload", "status.awaiting_upload"],
];

interface Props {
  q: string;
  status: string;
  /** How many sources have each status, shown beside each choice. */
  counts: SourcePage["counts"] | undefined;
  onChange: (next: { q?: string; status?: string }) => void;
}

/** Search by name and filter by status, with how many sources have each. */
export function SourceFilters({ q, status, counts, onChange }: Props) {
  return (
    <FilterToolbar
      idPrefix="src"
      searchLabel={t("sourceFilters.search")}
      placeholder={t("sourceFilters.search")}
      statusLabel={t("sourceFilters.status")}
      search={q}
      status={status}
      onSearch={(q) => onChange({ q })}
      onStatus={(status) => onChange({ status })}
    >
      <option value="">{t("filter.anyStatus")}</option>
      {STATUS_OPTIONS.map(([v, label]) => (
        <option value={v}>{counts ? `${t(label)} (${formatNumber(counts[v])})` : t(label)}</option>
      ))}
    </FilterToolbar>
  );
}
