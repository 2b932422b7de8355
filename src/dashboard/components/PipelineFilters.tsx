/** The search box and status filter above the pipeline list. */
import type { PipelineStatus } from "../api/types";
import { type Key, t } from "../i18n";
import { FilterToolbar } from "./FilterToolbar";

const STATUS_OPTIONS: [PipelineStatus | "", Key][] = [
  ["", "filter.anyStatus"],
  ["ready", "status.ready"],
  ["processing", "status.processing"],
  ["error", "status.error"],
  ["empty", "status.empty"],
];

interface Props {
  search: string;
  status: string;
  onChange: (next: { search?: string; status?: string }) => void;
}

/** Search by name and filter by status. */
export function PipelineFilters({ search, status, onChange }: Props) {
  return (
    <FilterToolbar
      idPrefix="pl"
      searchLabel={t("pipelines.searchLabel")}
      placeholder={t("pipelines.searchPlaceholder")}
      statusLabel={t("filter.byStatus")}
      search={search}
      status={status}
      onSearch={(search) => onChange({ search })}
      onStatus={(status) => onChange({ status })}
    >
      {STATUS_OPTIONS.map(([v, label]) => (
        <option value={v}>{t(label)}</option>
      ))}
    </FilterToolbar>
  );
}
