/** The search box and status filter above a list; the URL stays the source of truth. */
import type { ComponentChildren } from "preact";
import { useSearchBox } from "../lib/hooks";

interface Props {
  /** Prefix of the two controls' ids (`<idPrefix>-search`, `<idPrefix>-status`). */
  idPrefix: string;
  searchLabel: string;
  placeholder: string;
  statusLabel: string;
  /** The search and status as the URL has them. */
  search: string;
  status: string;
  onSearch: (text: string) => void;
  onStatus: (status: string) => void;
  /** The status choices, as <option> elements. */
  children: ComponentChildren;
}

/** A role=search form; typing reaches `onSearch` debounced (useSearchBox). */
export function FilterToolbar(p: Props) {
  const searchId = `${p.idPrefix}-search`;
  const statusId = `${p.idPrefix}-status`;
  const { typed, setTyped, commit } = useSearchBox(p.search, searchId, p.onSearch);
  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is not yet styled or announced everywhere
    <form class="toolbar" role="search" onSubmit={(e) => (e.preventDefault(), commit())}>
      <label class="sr-only" for={searchId}>
        {p.searchLabel}
      </label>
      <input
        id={searchId}
        type="search"
        placeholder={p.placeholder}
        value={typed}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
      <label class="sr-only" for={statusId}>
        {p.statusLabel}
      </label>
      <select id={statusId} value={p.status} onChange={(e) => p.onStatus(e.currentTarget.value)}>
        {p.children}
      </select>
    </form>
  );
}
