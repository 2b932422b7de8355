/** POST /api/rag/query: the one endpoint that takes a pipeline API key. */
import { Elysia } from "elysia";
import { ErrorBody } from "../../http/models";
import { unknownFields } from "../../http/unknown-fields";
import { QueryResponse, SearchBody } from "./model";
import type { QueryService } from "./service";

export function queryRoutes(queries: QueryService) {
  return (
    new Elysia({ tags: ["Query"] })
      .use(unknownFields)
      // derive runs before body validation, so a bad key is 401 whatever fields the body has
      // (only a body that is not JSON at all is reported first).
      .derive({ as: "local" }, ({ request }) => ({ pipeline: queries.admit(request.headers.get("authorization")) }))
      .post("/api/rag/query", ({ body, pipeline }) => queries.query(pipeline, body), {
        parse: "json",

        rejectUnknownFields: SearchBody,
        body: SearchBody,
        response: { 200: QueryResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody, 503: ErrorBody },
        detail: {
          summary: "Query a pipeline with its API key",
          security: [{ apiKey: [] }],
        },
      })
  );
}
