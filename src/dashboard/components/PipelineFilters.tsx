/**
 * The search box and status filter above the pipeline list. Typing is debounced
 * before it reaches the URL (useSearchBox).
 */
import type { PipelineStatus } from "../api/types";
import { useSearchBox } from "../lib/hooks";

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

/** A role=search form; the URL stays the source of truth. */
export function PipelineFilters({ search, status, onChange }: Props) {
  const { typed, setTyped, commit } = useSearchBox(search, "pl-search", (search) => onChange({ search }));

  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is not yet styled or announced everywhere
    <form class="toolbar" role="search" onSubmit={(e) => (e.preventDefault(), commit())}>
      <label class="sr-only" for="pl-search">
        Search pipelines by name
      </label>
      <input
        id="pl-search"
        type="search"
        placeholder="Search by name"
        value={typed}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
      <label class="sr-only" for="pl-status">
        Filter by status
      </label>
      <select id="pl-status" value={status} onChange={(e) => onChange({ status: e.currentTarget.value })}>
        {STATUS_OPTIONS.map(([v, label]) => (
          <option value={v}>{label}</option>
        ))}
      </select>
    </form>
  );
}
