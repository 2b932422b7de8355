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
import { useLoad, usePoll, useTitle } from "../lib/hooks";
import { pipelineLimit, useApp } from "../lib/session";
import { href, navigate } from "../router";

const PAGE_SIZE = 10;

/** The list screen; `query` is the route's query string. */
export function PipelinesScreen({ query }: { query: URLSearchParams }) {
  useTitle("Pipelines");
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
          <h1>Pipelines</h1>
          <p class="muted">
            A pipeline chunks and embeds your sources and answers queries made with its API keys.
            {limit !== null && owned !== undefined && ` You are using ${owned} of ${limit} on your ${user.tier} tier.`}
          </p>
        </div>
        <a class="btn btn-primary" href="#/pipelines/new">
          New pipeline
        </a>
      </div>
      <PipelineFilters search={search} status={status} onChange={(next) => go({ ...next, page: 1 })} />
      <ErrorNote error={list.error} context="Could not load your pipelines" />
      {list.data === undefined && list.loading && <Loading />}
      {list.data && list.data.data.length === 0 && !filtered && (
        <EmptyState
          title="Create your first pipeline"
          action={
            <a class="btn btn-primary" href="#/pipelines/new">
              New pipeline
            </a>
          }
        >
          Pick how text is chunked and which model embeds it; then add text, files or URLs and query them with an API
          key.
        </EmptyState>
      )}
      {list.data && list.data.data.length === 0 && filtered && (
        <EmptyState
          title="No pipeline matches"
          action={
            <a class="btn" href="#/pipelines">
              Clear search and filter
            </a>
          }
        >
          {search ? `Nothing is named like “${search}”` : "Nothing has this status"}
          {status && search ? " with this status" : ""}.
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
