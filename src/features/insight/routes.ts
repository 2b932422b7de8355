/**
 * The Insight routes of a pipeline (docs/API.md, "Query log and insight"), for its
 * signed-in owner: the figures the dashboard's Insight tab draws, and the log itself.
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";
import { InsightModel, InsightQuery, QueryLogPage, QueryLogQuery } from "./schemas";
import type { InsightService } from "./service";

const Params = t.Object({ id: t.String() });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export function insightRoutes(auth: AuthService, insight: InsightService) {
  return new Elysia({ prefix: "/api/rag/pipelines", tags: ["Insight"] })
    .use(sessionAuth(auth))
    .get("/:id/insight", ({ user, params, query }) => insight.insight(user, params.id, query.hours ?? 24), {
      session: true,
      params: Params,
      query: InsightQuery,
      response: { 200: InsightModel, ...errors },
      detail: {
        summary:
          "Searches per hour with p50/p95 latency, frequent queries, queries with no relevant result, chunks indexed per minute and evaluation scores",
      },
    })
    .get(
      "/:id/query-log",
      ({ user, params, query }) => insight.entries(user, params.id, query.page ?? 1, query.pageSize ?? 50),
      {
        session: true,
        params: Params,
        query: QueryLogQuery,
        response: { 200: QueryLogPage, ...errors },
        detail: { summary: "The pipeline's logged searches, newest first (never their results: they are not kept)" },
      },
    );
}
