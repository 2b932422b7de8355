/** Schemas of the query endpoint (seed 2.4 and 4.1, CONTRACT 6). */
import { t } from "elysia";
import { Enum, StrictInteger } from "../../http/models";

export const QUERY_MODES = ["vector", "keyword", "hybrid"] as const;

export const QueryBody = t.Object({
  // The 8000 bound applies after trimming (QueryService); this only caps what is read.
  query: t.String({ minLength: 1, maxLength: 100_000, description: "1..8000 characters after trimming." }),
  topK: t.Optional(StrictInteger({ minimum: 1, maximum: 100, description: "Default: the pipeline's retrievalTopK." })),
  mode: t.Optional(Enum(QUERY_MODES, { description: "Default hybrid." })),
  minScore: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  filter: t.Optional(t.Object({ sourceIds: t.Optional(t.Array(t.String(), { maxItems: 1000 })) })),
});

export const ResultModel = t.Object({
  content: t.String(),
  score: t.Number({ minimum: 0, maximum: 1 }),
  metadata: t.Object(
    {
      sourceId: t.String(),
      sourceName: t.String(),
      chunkIndex: StrictInteger(),
    },
    { additionalProperties: true },
  ),
});

export const QueryResponse = t.Object({
  results: t.Array(ResultModel),
  pipelineId: t.String(),
  query: t.String(),
  topK: StrictInteger(),
});

export type QueryBodyT = typeof QueryBody.static;
export type QueryResult = typeof ResultModel.static;
