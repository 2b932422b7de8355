/** The search box and status filter above the pipeline list. */
import type { PipelineStatus } from "../api/types";
import { FilterToolbar } from "./FilterToolbar";

const STATUS_OPTIONS: [PipelineStatus | "", string][] = [
  ["", "Any status"],
  ["ready", "Ready"],
  ["processing", "Processing"],
  ["error", "Error"],
  ["empty", "Empty"],
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
      searchLabel="Search pipelines by name"
      placeholder="Search by name"
      statusLabel="Filter by status"
      search={search}
      status={status}
      onSearch={(search) => onChange({ search })}
      onStatus={(status) => onChange({ status })}
    >
      {STATUS_OPTIONS.map(([v, label]) => (
        <option value={v}>{label}</option>
      ))}
    </FilterToolbar>
  );
}
