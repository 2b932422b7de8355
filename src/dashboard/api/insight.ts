/** The Insight endpoints and the query log setting (docs/API.md, "Query log and insight"). */
import type { Insight } from "../../features/insight/schemas";
import type { QueryLogInput } from "../../features/insight/settings";
import { qs, request } from "./client";
import type { Pipeline } from "./types";

export type { Insight };

const path = (id: string) => `/api/rag/pipelines/${encodeURIComponent(id)}`;

export const insight = {
  get: (pipelineId: string, hours: number) => request<Insight>("GET", `${path(pipelineId)}/insight${qs({ hours })}`),
  setQueryLog: (pipelineId: string, queryLog: QueryLogInput) =>
    request<Pipeline>("PATCH", path(pipelineId), { body: { queryLog } }),
};
