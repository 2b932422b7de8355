/**
 * One source, opened: what it is, its full error, its details (metadata, OCR, refresh and
 * crawl state), the text ragd extracted, its chunks with their offsets page by page, and
 * its history of events (docs/API.md, Inspecting a source). `?chunk=N` opens on N's page.
 */
import { pipelines, sources } from "../api/endpoints";
import { ErrorNote } from "../components/ErrorNote";
import { Loading } from "../components/EmptyState";
import { SourceChunks } from "../components/SourceChunks";
import { SourceDetails } from "../components/SourceDetails";
import { SourceHistory } from "../components/SourceHistory";
import { SourceText } from "../components/SourceText";
import { StatusBadge } from "../components/StatusBadge";
import { t } from "../i18n";
import { useLoad, usePoll, useTitle } from "../lib/hooks";
import { isBusy } from "../components/StatusBadge";

export function SourceScreen({
  pipelineId,
  sourceId,
  query,
}: {
  pipelineId: string;
  sourceId: string;
  query: URLSearchParams;
}) {
  const pipeline = useLoad(() => pipelines.get(pipelineId), [pipelineId]);
  const source = useLoad(() => sources.get(pipelineId, sourceId), [pipelineId, sourceId]);
  usePoll(source.data ? isBusy(source.data.status) : false, source.reload);
  useTitle(source.data?.name ?? t("source.title"));
  const base = `#/pipelines/${encodeURIComponent(pipelineId)}`;
  if (!source.data)
    return source.error ? <ErrorNote error={source.error} context={t("source.loadFailed")} /> : <Loading />;
  const s = source.data;
  const chunk = query.has("chunk") ? Number(query.get("chunk")) : Number.NaN;
  return (
    <>
      <nav class="crumbs" aria-label={t("common.breadcrumb")}>
        <a href="#/pipelines">{t("shell.pipelines")}</a> <span aria-hidden="true">/</span>{" "}
        <a href={`${base}/sources`}>{pipeline.data?.name ?? t("pipeline.title")}</a> <span aria-hidden="true">/</span>{" "}
        <span aria-current="page">{s.name}</span>
      </nav>
      <div class="page-head">
        <div>
          <h1 class="break">
            {s.name} <StatusBadge status={s.status} />
          </h1>
          <p class="muted">{t("count.chunks", { count: s.chunkCount })}</p>
        </div>
      </div>
      <div class="stack">
        {s.error && (
          <div class="note note-error" role="alert">
            <strong>{t("source.error")} </strong>
            <span class="break">{s.error}</span>
          </div>
        )}
        <SourceDetails source={s} />
        <SourceText pipelineId={pipelineId} sourceId={sourceId} revision={s.indexedAt ?? ""} />
        <SourceChunks
          pipelineId={pipelineId}
          sourceId={sourceId}
          total={s.chunkCount}
          focus={Number.isInteger(chunk) && chunk >= 0 ? chunk : undefined}
          revision={s.indexedAt ?? ""}
        />
        <SourceHistory pipelineId={pipelineId} sourceId={sourceId} revision={s.updatedAt} />
      </div>
    </>
  );
}
