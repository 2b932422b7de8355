/**
 * Inspecting a source (docs/API.md, "Inspecting a source"), for the pipeline's owner: its
 * chunks with offsets, page by page; spans of its extracted text; its history of events.
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { ErrorBody, QueryInteger } from "../../http/schemas";
import type { AuthService } from "../auth/service";
import type { PipelineService } from "../pipelines/service";
import { READ_MAX_CHARS } from "../mcp/source-text";
import type { SourceInspector } from "./inspect";

const Params = t.Object({ id: t.String(), sourceId: t.String() });
const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const ChunkPageModel = t.Object({
  chunks: t.Array(
    t.Object({
      chunkIndex: t.Integer(),
      start: t.Integer({ description: "Offset of the chunk's first character in the source's extracted text." }),
      end: t.Integer({ description: "Offset just after its last character: text = extracted.slice(start, end)." }),
      text: t.String(),
    }),
  ),
  page: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer({ description: "The source's chunks in the pipeline's active index." }),
});

/** An event as the events stream sends it (docs/API.md, The event object). */
const EventModel = t.Object({
  id: t.Integer(),
  type: t.String(),
  pipelineId: t.String(),
  sourceId: t.Union([t.String(), t.Null()]),
  externalId: t.Union([t.String(), t.Null()]),
  status: t.Union([t.String(), t.Null()]),
  time: t.String(),
  progress: t.Optional(t.Unknown()),
  error: t.Optional(t.String()),
  evaluation: t.Optional(t.Unknown()),
});

const SpanModel = t.Object({
  sourceId: t.String(),
  sourceName: t.String(),
  start: t.Integer(),
  end: t.Integer(),
  length: t.Integer({ description: "Characters in the whole extracted text; 0 while there is none." }),
  more: t.Boolean(),
  rebuilt: t.Boolean({ description: "Rebuilt from the chunks: the whitespace between two chunks shows as spaces." }),
  text: t.String(),
});

export function sourceInspectRoutes(auth: AuthService, pipelines: PipelineService, inspector: SourceInspector) {
  return new Elysia({ prefix: "/api/rag/pipelines/:id/sources/:sourceId", tags: ["Data sources"] })
    .use(sessionAuth(auth))
    .get(
      "/chunks",
      async ({ user, params, query }) =>
        inspector.chunks(await pipelines.own(user, params.id), params.sourceId, query.page ?? 1, query.pageSize ?? 50),
      {
        session: true,
        params: Params,
        query: t.Object({
          page: t.Optional(QueryInteger({ minimum: 1, maximum: 1_000_000 })),
          pageSize: t.Optional(QueryInteger({ minimum: 1, maximum: 200 })),
        }),
        response: { 200: ChunkPageModel, ...Errors },
        detail: { summary: "A page of a source's chunks, with their offsets in its extracted text" },
      },
    )
    .get(
      "/text",
      async ({ user, params, query }) =>
        inspector.text(await pipelines.own(user, params.id), params.sourceId, query.start ?? 0, query.end),
      {
        session: true,
        params: Params,
        query: t.Object({
          start: t.Optional(QueryInteger({ minimum: 0, maximum: 2 ** 31 - 1 })),
          end: t.Optional(QueryInteger({ minimum: 1, maximum: 2 ** 31 - 1 })),
        }),
        response: { 200: SpanModel, ...Errors },
        detail: { summary: `Characters [start, end) of a source's extracted text, at most ${READ_MAX_CHARS}` },
      },
    )
    .get(
      "/history",
      async ({ user, params }) => inspector.history(await pipelines.own(user, params.id), params.sourceId),
      {
        session: true,
        params: Params,
        response: { 200: t.Object({ events: t.Array(EventModel) }), ...Errors },
        detail: { summary: "A source's newest events (status changes, refreshes, failures), newest first" },
      },
    );
}
