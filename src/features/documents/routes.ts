/**
 * The documents API (docs/API.md, Documents API): a pipeline's sources by the
 * client's external id, for applications, with a key that has the ingest scope.
 * The pipeline is the key's; a session cookie does not open this door.
 */
import { Elysia, t } from "elysia";
import { AppError } from "../../http/errors";
import { ErrorBody } from "../../http/schemas";
import { unknownFields } from "../../http/unknown-fields";
import {
  BatchBody,
  BatchResponse,
  DocumentModel,
  DocumentPage,
  DocumentUpsertJson,
  ListQuery,
  UpsertResult,
} from "./schemas";
import type { DocumentService } from "./service";
import { receiveDocumentFile } from "./upload";

const Params = t.Object({ externalId: t.String() });
const Failures = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const security = [{ apiKey: [] }];

export function documentRoutes(docs: DocumentService, maxUploadMb: number) {
  return (
    new Elysia({ prefix: "/api/rag/documents", tags: ["Documents"] })
      .use(unknownFields)
      // derive runs before the body is read or validated: a bad key is 401 whatever the body holds.
      .derive({ as: "local" }, async ({ request }) => ({
        pipeline: await docs.admit(request.headers.get("authorization")),
      }))
      .get("", ({ pipeline, query }) => docs.list(pipeline, query), {
        query: ListQuery,
        response: { 200: DocumentPage, ...Failures },
        detail: { summary: "Page through the pipeline's documents (status, updatedSince)", security },
      })
      .post("/batch", ({ pipeline, body }) => docs.batch(pipeline, body.documents), {
        parse: "json",
        rejectUnknownFields: BatchBody,
        body: BatchBody,
        response: { 200: BatchResponse, ...Failures, 413: ErrorBody, 429: ErrorBody },
        detail: { summary: "Upsert up to 1,000 documents; one result per item, in order", security },
      })
      .put(
        "/:externalId",
        async ({ pipeline, params, request, body, set }) => {
          const type = (request.headers.get("content-type") ?? "").toLowerCase();
          const multipart = type.startsWith("multipart/form-data");
          if (!multipart && !/^application\/([\w.+-]*\+)?json\b/.test(type))
            throw new AppError(
              "unsupported_media_type",
              "send the document as JSON (Content-Type: application/json) or a file as multipart/form-data",
            );
          const result = multipart
            ? await docs.upsertFile(
                pipeline,
                params.externalId,
                await receiveDocumentFile(request, docs.staging(pipeline), maxUploadMb * 1024 * 1024),
              )
            : await docs.upsertJson(pipeline, params.externalId, body);
          set.status = result.status === "created" ? 201 : 200;
          return result;
        },
        {
          params: Params,
          response: {
            200: UpsertResult,
            201: UpsertResult,
            ...Failures,
            413: ErrorBody,
            415: ErrorBody,
            429: ErrorBody,
          },
          detail: {
            summary: "Create or replace a document by its external id (JSON text/url/api, or a multipart file)",
            security,
            requestBody: {
              required: true,
              content: {
                "application/json": { schema: DocumentUpsertJson },
                "multipart/form-data": {
                  schema: {
                    type: "object",
                    properties: {
                      file: { type: "string", format: "binary" },
                      name: { type: "string", description: "1..200 characters after trimming." },
                      metadata: {
                        type: "string",
                        description: "Optional: a JSON object of labels, as in the JSON body.",
                      },
                    },
                    required: ["file"],
                  },
                },
              },
            },
          },
        },
      )
      .get("/:externalId", ({ pipeline, params }) => docs.get(pipeline, params.externalId), {
        params: Params,
        response: { 200: DocumentModel, ...Failures },
        detail: { summary: "One document with its status", security },
      })
      .delete("/:externalId", ({ pipeline, params }) => docs.remove(pipeline, params.externalId), {
        params: Params,
        response: {
          200: t.Object({ deleted: t.Literal(true), id: t.String(), externalId: t.String() }),
          ...Failures,
        },
        detail: { summary: "Remove a document with its chunks and file", security },
      })
  );
}
