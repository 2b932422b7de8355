/** Schemas of data sources (CONTRACT 4). */
import { t } from "elysia";

export const SOURCE_TYPES = ["text", "file", "url", "api"] as const;
export const SOURCE_STATUSES = ["awaiting_upload", "queued", "processing", "ready", "failed"] as const;

export const SourceModel = t.Object({
  id: t.String(),
  pipelineId: t.String(),
  type: t.UnionEnum(SOURCE_TYPES),
  name: t.String(),
  content: t.Optional(t.String()),
  url: t.Optional(t.String()),
  fileName: t.Optional(t.String()),
  fileSize: t.Optional(t.Integer()),
  status: t.UnionEnum(SOURCE_STATUSES),
  error: t.Union([t.String(), t.Null()]),
  chunkCount: t.Integer(),
  progress: t.Object({ done: t.Integer(), total: t.Integer() }, { description: "Chunks embedded of total while processing." }),
  createdAt: t.String({ format: "date-time" }),
  updatedAt: t.String({ format: "date-time" }),
  indexedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

export type Source = typeof SourceModel.static;
