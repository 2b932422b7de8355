/** Pipeline routes (docs/API.md, "Pipelines"): list, create, get, patch, delete. */
import { Elysia, t } from "elysia";
import type { AuthService } from "../auth/service";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/schemas";
import {
  PipelineCreate,
  PipelineDetail,
  PipelineListQuery,
  PipelineModel,
  PipelinePage,
  PipelinePatch,
} from "./schemas";
import type { PipelineService } from "./service";

const Params = t.Object({ id: t.String() });

export function pipelineRoutes(auth: AuthService, pipelines: PipelineService) {
  return new Elysia({ prefix: "/api/rag/pipelines", tags: ["Pipelines"] })
    .use(sessionAuth(auth))
    .get("", ({ user, query }) => pipelines.list(user, query), {
      session: true,
      query: PipelineListQuery,
      response: { 200: PipelinePage, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
      detail: { summary: "List your pipelines, newest first" },
    })
    .post(
      "",
      ({ user, body, set }) => {
        set.status = 201;
        return pipelines.create(user, body);
      },
      {
        session: true,
        parse: "json",
        body: PipelineCreate,
        response: { 201: PipelineModel, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
        detail: { summary: "Create a pipeline (tier limits apply)" },
      },
    )
    .get("/:id", ({ user, params }) => pipelines.detail(user, params.id), {
      session: true,
      params: Params,
      response: { 200: PipelineDetail, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: "A pipeline with its data sources" },
    })
    .patch("/:id", ({ user, params, body }) => pipelines.update(user, params.id, body), {
      session: true,
      params: Params,
      parse: "json",

      body: PipelinePatch,
      response: { 200: PipelineModel, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: "Change settings; existing data is not re-indexed" },
    })
    .delete("/:id", ({ user, params }) => pipelines.remove(user, params.id), {
      session: true,
      params: Params,
      response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: "Delete a pipeline with its sources, keys, chunks and files" },
    });
}
