/**
 * The pipeline list: search by name, filter by status, page through. The filters
 * live in the URL (#/pipelines?search=x&status=ready&page=2), so they survive a
 * reload and the back button.
 */
import { pipelines } from "../api/endpoints";
import type { PipelineStatus } from "../api/types";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { Pagination } from "../components/Pagination";
import { PipelineFilters } from "../components/PipelineFilters";
import { PipelineTable } from "../components/PipelineTable";
import { TIER_NAMES } from "../components/TierBadge";
import { t } from "../i18n";
import { useLoad, usePoll, useTitle } from "../lib/hooks";
import { pipelineLimit, useApp } from "../lib/session";
import { href, navigate } from "../router";

const PAGE_SIZE = 10;

/** The list screen; `query` is the route's query string. */
export function PipelinesScreen({ query }: { query: URLSearchParams }) {
  useTitle(t("pipelines.title"));
  const { user } = useApp();
  const search = query.get("search") ?? "";
  const status = (query.get("status") ?? "") as PipelineStatus | "";
  const page = Math.max(1, Number(query.get("page")) || 1);
  const list = useLoad(() => pipelines.list({ page, pageSize: PAGE_SIZE, search, status }), [page, search, status]);
  const total = useLoad(() => pipelines.list({ page: 1, pageSize: 1 }), []);
  usePoll(list.data?.data.some((p) => p.status === "processing") ?? false, list.reload, 3000);

  const go = (next: { search?: string; status?: string; page?: number }) =>
    navigate(
      href("/pipelines", { search, status, ...next, page: next.page && next.page > 1 ? next.page : undefined }),
      true,
    );

  const limit = pipelineLimit(user);
  const owned = total.data?.total;
  const filtered = search !== "" || status !== "";

  return (
    <>
      <div class="page-head">
        <div>
          <h1>{t("pipelines.title")}</h1>
          <p class="muted">
            {t("pipelines.intro")}
            {limit !== null &&
              owned !== undefined &&
              ` ${t("pipelines.using", { owned, limit, tier: t(TIER_NAMES[user.tier]) })}`}
          </p>
        </div>
        <a class="btn btn-primary" href="#/pipelines/new">
          {t("pipelines.new")}
        </a>
      </div>
      <PipelineFilters search={search} status={status} onChange={(next) => go({ ...next, page: 1 })} />
      <ErrorNote error={list.error} context={t("pipelines.loadFailed")} />
      {list.data === undefined && list.loading && <Loading />}
      {list.data && list.data.data.length === 0 && !filtered && (
        <EmptyState
          title={t("pipelines.firstTitle")}
          action={
            <a class="btn btn-primary" href="#/pipelines/new">
              {t("pipelines.new")}
            </a>
          }
        >
          {t("pipelines.firstText")}
        </EmptyState>
      )}
      {list.data && list.data.data.length === 0 && filtered && (
        <EmptyState
          title={t("pipelines.noMatch")}
          action={
            <a class="btn" href="#/pipelines">
              {t("pipelines.clear")}
            </a>
          }
        >
          {search
            ? status
              ? t("pipelines.noNameStatus", { search })
              : t("pipelines.noName", { search })
            : t("pipelines.noStatus")}
        </EmptyState>
      )}
      {list.data && list.data.data.length > 0 && (
        <>
          <PipelineTable items={list.data.data} />
          <Pagination
            page={list.data.page}
            totalPages={list.data.totalPages}
            total={list.data.total}
            hrefFor={(p) => href("/pipelines", { search, status, page: p > 1 ? p : undefined })}
          />
        </>
      )}
    </>
  );
}
