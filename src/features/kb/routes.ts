/** Knowledge-base routes (docs/API.md, "Knowledge bases"): per user, session cookie. */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";
import { unknownFields } from "../../http/unknown-fields";
import { KbCreate, KbDetail, KbDocumentModel, KbModel } from "./schemas";
import type { KbService } from "./service";

const Params = t.Object({ id: t.String() });

export function kbRoutes(auth: AuthService, kbs: KbService) {
  return new Elysia({ prefix: "/api/kb", tags: ["Knowledge bases"] })
    .use(sessionAuth(auth))
    .use(unknownFields)
    .get("", ({ user }) => kbs.list(user), {
      session: true,
      response: { 200: t.Array(KbModel), 401: ErrorBody, 403: ErrorBody },
      detail: { summary: "Your knowledge bases with their document counts" },
    })
    .post(
      "",
      ({ user, body, set }) => {
        set.status = 201;
        return kbs.create(user, body);
      },
      {
        session: true,
        parse: "json",

        body: KbCreate,
        response: { 201: KbModel, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
        detail: { summary: "Create a knowledge base" },
      },
    )
    .get("/:id", ({ user, params }) => kbs.detail(user, params.id), {
      session: true,
      params: Params,
      response: { 200: KbDetail, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: "A knowledge base with its documents and their statuses" },
    })
    .delete("/:id", ({ user, params }) => kbs.remove(user, params.id), {
      session: true,
      params: Params,
      response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: "Delete a knowledge base with its documents, chunks and files" },
    })
    .post(
      "/:id/upload",
      async ({ user, params, request, set }) => {
        const form = {
          contentType: request.headers.get("content-type"),
          body: request.body,
          contentLength: Number(request.headers.get("content-length")) || 0,
        };
        const document = await kbs.upload(user, params.id, form);
        set.status = 202;
        return { document };
      },
      {
        session: true,
        parse: "none",
        params: Params,
        response: {
          202: t.Object({ document: KbDocumentModel }),
          400: ErrorBody,
          429: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          507: ErrorBody,
        },
        detail: {
          summary:
            "Upload a document (multipart/form-data: a part named file, and optionally a part named metadata holding a JSON object); processed in the background",
          requestBody: {
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    file: { type: "string", format: "binary" },
                    metadata: {
                      type: "string",
                      description:
                        'Optional: a JSON object of labels, e.g. {"team": "hr"}; the same rules as a source\'s metadata.',
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
    .delete("/:id/documents/:docId", ({ user, params }) => kbs.removeDocument(user, params.id, params.docId), {
      session: true,
      params: t.Object({ id: t.String(), docId: t.String() }),
      response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: "Delete one document" },
    });
}
