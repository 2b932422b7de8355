/** The pipeline rows: a table on wide screens, stacked cards on a phone (CSS). */
import type { Pipeline } from "../api/types";
import { formatNumber } from "../lib/format";
import { TimeAgo } from "./TimeAgo";
import { StatusBadge } from "./StatusBadge";

/** One row per pipeline; the name links to its page. */
export function PipelineTable({ items }: { items: Pipeline[] }) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">Your pipelines</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Sources
            </th>
            <th scope="col" class="num">
              Chunks
            </th>
            <th scope="col">Embedding model</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {items.map((p) => (
            <tr key={p.id}>
              <th scope="row" data-label="Name">
                <a class="row-link" href={`#/pipelines/${encodeURIComponent(p.id)}`}>
                  {p.name}
                </a>
                {p.description && <div class="muted clamp">{p.description}</div>}
              </th>
              <td data-label="Status">
                <StatusBadge status={p.status} />
              </td>
              <td data-label="Sources" class="num">
                {formatNumber(p.sourceCount)}
              </td>
              <td data-label="Chunks" class="num">
                {formatNumber(p.chunkCount)}
              </td>
              <td data-label="Model">
                <code>{p.embeddingModel}</code>
              </td>
              <td data-label="Updated">
                <TimeAgo at={p.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
