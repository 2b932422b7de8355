/**
 * Pipeline export and import (docs/API.md, Export and import):
 * POST /api/rag/pipelines/{id}/export streams an archive; POST /api/rag/pipelines/import
 * takes one (multipart, part `archive`) and creates a new pipeline from it.
 */
import { Elysia, t } from "elysia";
import { archiveStream } from "../../backup/archive";
import { attachment } from "../../http/attachment";
import { ErrorBody } from "../../http/schemas";
import type { TransferService } from "./service";

const ImportReply = t.Object({
  pipelineId: t.String(),
  renamedFrom: t.Optional(t.String()),
  sources: t.Integer(),
  chunks: t.Integer(),
  model: t.Object({ name: t.String(), available: t.Boolean(), message: t.String() }),
});

export function transferRoutes(transfers: TransferService) {
  return new Elysia({ prefix: "/api/rag/pipelines", tags: ["Pipelines"] })
    .post(
      "/import",
      async ({ request, set }) => {
        const caller = await transfers.caller(request);
        set.status = 201;
        return await transfers.import(caller, request);
      },
      {
        parse: "none",
        response: {
          201: ImportReply,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          501: ErrorBody,
        },
        detail: { summary: "Import a pipeline export as a new pipeline (no re-embedding)" },
      },
    )
    .post(
      "/:id/export",
      async ({ request, params }) => {
        const e = await transfers.export(await transfers.caller(request), params.id);
        return new Response(archiveStream(e.bytes, e.discard), {
          headers: {
            "content-type": "application/x-tar",
            "content-disposition": attachment(e.manifest.pipeline.name, ".ragd-export.tar", "pipeline"),
            "cache-control": "no-store",
          },
        });
      },
      {
        params: t.Object({ id: t.String() }),
        parse: "none",
        detail: {
          summary: "Download a pipeline with its sources and chunks (vectors included) as an archive",
          responses: {
            200: { description: "a tar archive (application/x-tar)" },
            501: { description: "the server keeps its files in object storage" },
          },
        },
      },
    );
}
