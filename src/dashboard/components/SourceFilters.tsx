/**
 * The search box and status filter above a pipeline's sources. Typing is debounced
 * before it reaches the URL (useSearchBox).
 */
import type { SourcePage, SourceStatus } from "../api/types";
import { useSearchBox } from "../lib/hooks";

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

/** A role=search form; the URL stays the source of truth. */
export function SourceFilters({ q, status, counts, onChange }: Props) {
  const { typed, setTyped, commit } = useSearchBox(q, "src-search", (q) => onChange({ q }));

  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is not yet styled or announced everywhere
    <form class="toolbar" role="search" onSubmit={(e) => (e.preventDefault(), commit())}>
      <label class="sr-only" for="src-search">
        Search sources by name
      </label>
      <input
        id="src-search"
        type="search"
        placeholder="Search sources by name"
        value={typed}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
      <label class="sr-only" for="src-status">
        Filter sources by status
      </label>
      <select id="src-status" value={status} onChange={(e) => onChange({ status: e.currentTarget.value })}>
        <option value="">Any status</option>
        {STATUS_OPTIONS.map(([v, label]) => (
          <option value={v}>{counts ? `${label} (${counts[v]})` : label}</option>
        ))}
      </select>
    </form>
  );
}
