/** The pipeline rows: a table on wide screens, stacked cards on a phone (CSS). */
import type { Pipeline } from "../api/types";
import { t } from "../i18n";
import { formatNumber } from "../lib/format";
import { TimeAgo } from "./TimeAgo";
import { StatusBadge } from "./StatusBadge";

/** One row per pipeline; the name links to its page. */
export function PipelineTable({ items }: { items: Pipeline[] }) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">{t("pipelineTable.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("common.name")}</th>
            <th scope="col">{t("common.status")}</th>
            <th scope="col" class="num">
              {t("pipelineTable.sources")}
            </th>
            <th scope="col" class="num">
              {t("pipelineTable.chunks")}
            </th>
            <th scope="col">{t("pipelineTable.model")}</th>
            <th scope="col">{t("pipelineTable.updated")}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((p) => (
            <tr key={p.id}>
              <th scope="row" data-label={t("common.name")}>
                <a class="row-link" href={`#/pipelines/${encodeURIComponent(p.id)}`}>
                  {p.name}
                </a>
                {p.description && <div class="muted clamp">{p.description}</div>}
              </th>
              <td data-label={t("common.status")}>
                <StatusBadge status={p.status} />
              </td>
              <td data-label={t("pipelineTable.sources")} class="num">
                {formatNumber(p.sourceCount)}
              </td>
              <td data-label={t("pipelineTable.chunks")} class="num">
                {formatNumber(p.chunkCount)}
              </td>
              <td data-label={t("pipelineTable.modelShort")}>
                <code>{p.embeddingModel}</code>
              </td>
              <td data-label={t("pipelineTable.updated")}>
                <TimeAgo at={p.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
