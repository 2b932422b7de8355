/**
 * A result's text: its `highlights` marked, and its `context` (from `expand`) around it
 * in muted type, so the hit stands out from the text before and after it.
 */
import type { QueryResult } from "../api/types";

/** The chunk's text with each [start, end) highlight in <mark>, and its context around it. */
export function ResultText({ r }: { r: QueryResult }) {
  return (
    <p class="result-text">
      {r.context?.before && <span class="result-context muted">{r.context.before}</span>}
      {r.context ? <span class="result-hit">{marked(r)}</span> : marked(r)}
      {r.context?.after && <span class="result-context muted">{r.context.after}</span>}
    </p>
  );
}

function marked(r: QueryResult) {
  if (!r.highlights?.length) return r.content;
  const parts = [];
  let at = 0;
  for (const [start, end] of r.highlights) {
    if (start < at) continue;
    if (start > at) parts.push(r.content.slice(at, start));
    parts.push(<mark key={start}>{r.content.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(r.content.slice(at));
  return parts;
}
