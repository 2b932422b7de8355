/** The search box and status filter above a pipeline's sources. */
import type { SourcePage, SourceStatus } from "../api/types";
import { FilterToolbar } from "./FilterToolbar";

const STATUS_OPTIONS: [SourceStatus, string][] = [
  ["ready", "Ready"],
  ["processing", "Processing"],
  ["queued", "Queued"],
  ["failed", "Failed"],
  ["awaiting_upload", "Awaiting upload"],
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
      searchLabel="Search sources by name"
      placeholder="Search sources by name"
      statusLabel="Filter sources by status"
      search={q}
      status={status}
      onSearch={(q) => onChange({ q })}
      onStatus={(status) => onChange({ status })}
    >
      <option value="">Any status</option>
      {STATUS_OPTIONS.map(([v, label]) => (
        <option value={v}>{counts ? `${label} (${counts[v]})` : label}</option>
      ))}
    </FilterToolbar>
  );
}
