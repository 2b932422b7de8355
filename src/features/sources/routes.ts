/**
 * Data source routes (docs/API.md, "Data sources") and the re-index trigger, under a pipeline;
 * and PUT /uploads/:sourceId, where the signed uploadUrl points.
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";
import { ReindexBody } from "../evals/schemas";
import type { EvalService } from "../evals/service";
import { PipelineModel } from "../pipelines/schemas";
import type { PipelineService } from "../pipelines/service";
import { unknownFields } from "../../http/unknown-fields";
import { SourceListQuery, SourcePage } from "./list";
import { SourceCreate, SourceCreated, SourceModel, SourcePatch } from "./schemas";
import type { SourceService } from "./service";

const Params = t.Object({ id: t.String() });
const SourceParams = t.Object({ id: t.String(), sourceId: t.String() });
/** What retry and refetch answer: the source, queued again (409 when it cannot be). */
const SourceRequeued = {
  202: t.Object({ source: SourceModel }),
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
};

export function sourceRoutes(
  auth: AuthService,
  pipelines: PipelineService,
  sources: SourceService,
  evals: EvalService,
) {
  const pipelineOf = (user: Parameters<PipelineService["own"]>[0], id: string) => pipelines.own(user, id);
  return new Elysia({ prefix: "/api/rag/pipelines/:id", tags: ["Data sources"] })
    .use(sessionAuth(auth))
    .use(unknownFields)
    .get("/sources", async ({ user, params, query }) => sources.list(await pipelineOf(user, params.id), query), {
      session: true,
      params: Params,
      query: SourceListQuery,
      response: {
        200: t.Union([SourcePage, t.Array(SourceModel)]),
        400: ErrorBody,
        401: ErrorBody,
        403: ErrorBody,
        404: ErrorBody,
      },
      detail: {
        summary:
          "A page of a pipeline's sources, searchable by name and filterable by status; without page, pageSize, q, status or sort, all of them as an array",
      },
    })
    .post(
      "/sources",
      async ({ user, params, body, set }) => {
        set.status = 201;
        return sources.create(await pipelineOf(user, params.id), body);
      },
      {
        session: true,
        params: Params,
        parse: "json",

        body: SourceCreate,
        response: {
          201: SourceCreated,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          413: ErrorBody,
          429: ErrorBody,
          507: ErrorBody,
        },
        detail: { summary: "Add a source; text/url/api ingest at once, file returns an uploadUrl" },
      },
    )
    .get(
      "/sources/:sourceId",
      async ({ user, params }) => sources.get(await pipelineOf(user, params.id), params.sourceId),
      {
        session: true,
        params: SourceParams,
        response: { 200: SourceModel, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "One data source" },
      },
    )
    .patch(
      "/sources/:sourceId",
      async ({ user, params, body }) => sources.update(await pipelineOf(user, params.id), params.sourceId, body),
      {
        session: true,
        rejectUnknownFields: SourcePatch,
        params: SourceParams,
        parse: "json",
        body: SourcePatch,
        response: { 200: SourceModel, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: {
          summary:
            "Rename a source, replace its metadata (the chunks get it without re-embedding), change its schedule, or set an s3 or git source's credentials again",
        },
      },
    )
    .delete(
      "/sources/:sourceId",
      async ({ user, params }) => sources.remove(await pipelineOf(user, params.id), params.sourceId),
      {
        session: true,
        params: SourceParams,
        response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "Delete a source with its chunks and file" },
      },
    )
    .post(
      "/sources/:sourceId/retry",
      async ({ user, params, set }) => {
        const source = await sources.retry(await pipelineOf(user, params.id), params.sourceId);
        set.status = 202;
        return { source };
      },
      {
        session: true,
        params: SourceParams,
        response: SourceRequeued,
        detail: { summary: "Ingest a failed source again" },
      },
    )
    .post(
      "/sources/:sourceId/refetch",
      async ({ user, params, set }) => {
        const source = await sources.refetch(await pipelineOf(user, params.id), params.sourceId);
        set.status = 202;
        return { source };
      },
      {
        session: true,
        params: SourceParams,
        response: SourceRequeued,
        detail: {
          summary:
            "Fetch a url or api source again now (a crawl source crawls again); only changed text is embedded again",
        },
      },
    )
    .post(
      "/reindex",
      async ({ user, params, body, set }) => {
        const col = await pipelineOf(user, params.id);
        await sources.reindex(col, await evals.gateFor(col, body ?? {}));
        set.status = 202;
        return { pipeline: await pipelines.get(user, params.id) };
      },
      {
        session: true,
        params: Params,
        rejectUnknownFields: ReindexBody,
        body: t.Optional(ReindexBody),
        response: {
          202: t.Object({ pipeline: PipelineModel }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
        detail: {
          summary:
            "Re-chunk and re-embed every source with the current settings; the old index answers until the new one is complete (and, with switch ifNotWorse, is not worse on an evaluation set)",
        },
      },
    );
}

export function uploadRoutes(sources: SourceService) {
  return new Elysia({ tags: ["Data sources"] }).put(
    "/uploads/:sourceId",
    async ({ params, query, request }) => ({
      source: await sources.upload(
        params.sourceId,
        query,
        request.body,
        Number(request.headers.get("content-length") ?? Number.NaN),
      ),
    }),
    {
      parse: "none",
      params: t.Object({ sourceId: t.String() }),
      query: t.Object({ expires: t.Optional(t.String()), size: t.Optional(t.String()), sig: t.Optional(t.String()) }),
      response: {
        200: t.Object({ source: SourceModel }),
        400: ErrorBody,
        403: ErrorBody,
        404: ErrorBody,
        409: ErrorBody,
        413: ErrorBody,
        507: ErrorBody,
      },
      detail: {
        summary: "Upload the raw bytes of a file source (the signed uploadUrl authorises it; no cookie)",
        security: [],
      },
    },
  );
}
