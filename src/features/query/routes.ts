/**
 * POST /api/rag/query: the one endpoint that takes a pipeline API key; and
 * POST /api/rag/pipelines/:id/query, the same search for the signed-in owner
 * (the dashboard's playground), with no key at all.
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";
import type { PipelineService } from "../pipelines/service";
import { unknownFields } from "../../http/unknown-fields";
import { QueryResponse, SearchBody } from "./schemas";
import type { QueryService } from "./service";

const OWNER = { door: "playground", keyId: null } as const;

export function queryRoutes(queries: QueryService) {
  return (
    new Elysia({ tags: ["Query"] })
      .use(unknownFields)
      // derive runs before body validation, so a bad key is 401 whatever fields the body has
      // (only a body that is not JSON at all is reported first).
      .derive({ as: "local" }, ({ request }) => queries.admitKey(request.headers.get("authorization"), 1))
      .post(
        "/api/rag/query",
        ({ body, collection, access, keyId }) => queries.query(collection, body, access, { door: "query", keyId }),
        {
          parse: "json",

          rejectUnknownFields: SearchBody,
          body: SearchBody,
          response: { 200: QueryResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody, 503: ErrorBody },
          detail: {
            summary: "Query a pipeline with its API key",
            security: [{ apiKey: [] }],
          },
        },
      )
  );
}

/** The owner's own searches, on the session door (docs/API.md, Query: from the dashboard). */
export function sessionQueryRoutes(auth: AuthService, pipelines: PipelineService, queries: QueryService) {
  return new Elysia({ tags: ["Query"] })
    .use(sessionAuth(auth))
    .use(unknownFields)
    .post(
      "/api/rag/pipelines/:id/query",
      async ({ user, params, body }) =>
        queries.query(queries.admitOwner(user.id, await pipelines.own(user, params.id)), body, null, OWNER),
      {
        session: true,
        params: t.Object({ id: t.String() }),
        parse: "json",
        rejectUnknownFields: SearchBody,
        body: SearchBody,
        response: {
          200: QueryResponse,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          429: ErrorBody,
          503: ErrorBody,
        },
        detail: { summary: "Query your pipeline as its signed-in owner (the dashboard's playground); no key needed" },
      },
    );
}
