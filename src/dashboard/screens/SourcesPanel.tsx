/**
 * The Sources tab: add text, a URL, an API address or a file, and watch each
 * source move through queued → processing → ready (or failed, with its error and
 * a Retry). The list is paged, searchable by name and filterable by status; the
 * page, search and filter live in the URL (#/pipelines/<id>/sources?q=x&page=2).
 * The visible page follows the pipeline's event stream, and is polled only while
 * the stream is down (lib/source-refresh.ts).
 */
import { useEffect, useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import type { PipelineDetail, Source, SourceStatus } from "../api/types";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState, Loading } from "../components/EmptyState";
import { IngestStrip } from "../components/IngestStrip";
import { ErrorNote } from "../components/ErrorNote";
import { Pagination } from "../components/Pagination";
import { SourceAddForm } from "../components/SourceAddForm";
import { SourceFilters } from "../components/SourceFilters";
import { SourceRow } from "../components/SourceRow";
import { t } from "../i18n";
import { formatNumber } from "../lib/format";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";
import { useSourceRefresh } from "../lib/source-refresh";
import { href, navigate } from "../router";

const PAGE_SIZE = 20;

interface Props {
  pipeline: PipelineDetail;
  /** The route's query string: page, q and status. */
  query: URLSearchParams;
  /** Tells the page to refresh its header (status, counts). */
  onChange: () => void;
}

/** Sources of one pipeline, with the add form above the list. */
export function SourcesPanel({ pipeline, query, onChange }: Props) {
  const { notify } = useApp();
  const q = query.get("q") ?? "";
  const status = (query.get("status") ?? "") as SourceStatus | "";
  const page = Math.max(1, Number(query.get("page")) || 1);
  const list = useLoad(
    // Newest first: what was just added, and is being processed, is on the first page.
    () => sources.list(pipeline.id, { page, pageSize: PAGE_SIZE, q, status, sort: "-createdAt" }),
    [pipeline.id, page, q, status],
  );
  const [doomed, setDoomed] = useState<Source | undefined>(undefined);
  const { polling, live } = useSourceRefresh(pipeline.id, list.data, list.reload, onChange);

  const path = `/pipelines/${encodeURIComponent(pipeline.id)}/sources`;
  const go = (next: { q?: string; status?: string; page?: number }) =>
    navigate(href(path, { q, status, ...next, page: next.page && next.page > 1 ? next.page : undefined }), true);

  // A delete can empty the last page: step back to the new last one.
  const data = list.data;
  useEffect(() => {
    if (data && data.data.length === 0 && data.total > 0 && page > data.totalPages) go({ page: data.totalPages });
  }, [data]);

  const refresh = async () => {
    await list.reload();
    onChange();
  };
  const remove = useAction(async (s: Source) => {
    await sources.remove(pipeline.id, s.id);
    setDoomed(undefined);
    notify(t("sources.deleted", { name: s.name }));
    await refresh();
  });

  const items = data?.data ?? [];
  const filtered = q !== "" || status !== "";
  const all = data ? Object.values(data.counts).reduce((a, b) => a + b, 0) : 0;

  return (
    <div class="stack">
      <section class="card" aria-labelledby="add-src-h">
        <h2 id="add-src-h">{t("sources.add")}</h2>
        <SourceAddForm pipelineId={pipeline.id} onAdded={refresh} />
      </section>
      <section aria-labelledby="src-h">
        <div class="section-head">
          <h2 id="src-h">{t("tabs.sources")}</h2>
          {data && (
            <span class="muted" aria-live="polite">
              {filtered
                ? t("sources.someOf", { shown: formatNumber(data.total), count: all })
                : t("count.sources", { count: data.total })}
              {live ? ` · ${t("sources.live")}` : polling && ` · ${t("sources.polling")}`}
            </span>
          )}
        </div>
        <IngestStrip counts={data?.counts} ingest={data?.ingest} />
        {(all > 0 || filtered) && (
          <SourceFilters q={q} status={status} counts={data?.counts} onChange={(next) => go({ ...next, page: 1 })} />
        )}
        <ErrorNote error={list.error} context={t("sources.loadFailed")} />
        {!data && list.loading && <Loading />}
        {data && items.length === 0 && !filtered && data.total === 0 && (
          <EmptyState title={t("sources.none")}>{t("sources.noneText")}</EmptyState>
        )}
        {data && items.length === 0 && filtered && (
          <EmptyState
            title={t("sources.noMatch")}
            action={
              <a class="btn" href={`#${path}`}>
                {t("pipelines.clear")}
              </a>
            }
          >
            {q
              ? status
                ? t("pipelines.noNameStatus", { search: q })
                : t("pipelines.noName", { search: q })
              : t("pipelines.noStatus")}
          </EmptyState>
        )}
        {items.length > 0 && (
          <ul class="rows" aria-label={t("tabs.sources")}>
            {items.map((s) => (
              <SourceRow
                key={s.id}
                pipelineId={pipeline.id}
                source={s}
                onChanged={refresh}
                onDelete={() => setDoomed(s)}
              />
            ))}
          </ul>
        )}
        {data && (
          <Pagination
            page={data.page}
            totalPages={data.totalPages}
            total={data.total}
            hrefFor={(n) => href(path, { q, status, page: n > 1 ? n : undefined })}
          />
        )}
      </section>
      {doomed && (
        <ConfirmDialog
          title={t("deletePipeline.confirmTitle", { name: doomed.name })}
          confirmLabel={t("sources.deleteSource")}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => (setDoomed(undefined), remove.setError(undefined))}
        >
          <p>
            {t(doomed.type === "file" ? "sources.deleteFileText" : "sources.deleteText", {
              chunks: t("count.chunks", { count: doomed.chunkCount }),
            })}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
