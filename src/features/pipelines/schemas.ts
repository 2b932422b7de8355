/** Request and response schemas of the pipeline endpoints (docs/API.md, "Pipelines"). */
import { t } from "elysia";
import { Enum, Name, QueryInteger, StrictInteger } from "../../http/schemas";
import { LANGUAGE_NAME } from "../../ingest/ocr/languages";
import { QueryLogSetting, QueryLogShown } from "../insight/settings";
import { SourceModel } from "../sources/schemas";

export const CHUNKING_STRATEGIES = ["recursive", "fixed", "sentence", "paragraph", "markdown", "token"] as const;
export const VECTOR_PROVIDERS = ["lancedb"] as const;
export const STATUSES = ["empty", "processing", "error", "ready"] as const;

const configFields = {
  name: Name(200),
  description: t.String({ maxLength: 5000 }),
  chunkingStrategy: Enum(CHUNKING_STRATEGIES),
  chunkSize: StrictInteger({ minimum: 50, maximum: 20000, description: "Characters (tokens for the token strategy)." }),
  chunkOverlap: StrictInteger({ minimum: 0, maximum: 19999, description: "Less than chunkSize; same unit." }),
  embeddingModel: t.String({
    minLength: 1,
    maxLength: 210,
    description: "builtin-glove (the default), builtin, ollama/<model>, a bare Ollama model name, or openai/<model>.",
  }),
  vectorProvider: Enum(VECTOR_PROVIDERS),
  retrievalTopK: StrictInteger({ minimum: 1, maximum: 100 }),
  hybridAlpha: t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()], {
    description: "Hybrid blend, 0 keyword only … 1 vector only; null = the default for the embedder.",
  }),
  rerankModel: t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()], {
    description: "The model the reranker at RAGD_RERANK_URL orders query candidates with; null = no reranking.",
  }),
  language: t.String({
    minLength: 1,
    maxLength: 16,
    description:
      "How text is split into words and stemmed for search: auto (detected per chunk and per query) or a language code from GET /api/languages. A change takes effect at the next re-index.",
  }),
  ocrLanguages: t.Union(
    [t.Array(t.String({ pattern: LANGUAGE_NAME.source }), { minItems: 1, maxItems: 8, uniqueItems: true }), t.Null()],
    {
      description:
        'Language data OCR reads this pipeline\'s pictures and scanned pages with, e.g. ["eng", "deu"]: eng is built in, others are <data dir>/ocr/<lang>.traineddata; null = the server\'s RAGD_OCR_LANGUAGES.',
    },
  ),
  queryLog: QueryLogSetting,
};

export const PipelineCreate = t.Object({
  name: configFields.name,
  description: t.Optional(configFields.description),
  chunkingStrategy: t.Optional(configFields.chunkingStrategy),
  chunkSize: t.Optional(configFields.chunkSize),
  chunkOverlap: t.Optional(configFields.chunkOverlap),
  embeddingModel: t.Optional(configFields.embeddingModel),
  vectorProvider: t.Optional(configFields.vectorProvider),
  retrievalTopK: t.Optional(configFields.retrievalTopK),
  hybridAlpha: t.Optional(configFields.hybridAlpha),
  rerankModel: t.Optional(configFields.rerankModel),
  ocrLanguages: t.Optional(configFields.ocrLanguages),
  language: t.Optional(configFields.language),
  queryLog: t.Optional(configFields.queryLog),
});

export const PipelinePatch = t.Partial(t.Object(configFields), { minProperties: 0 });

export const PipelineListQuery = t.Object({
  page: t.Optional(QueryInteger({ minimum: 1, maximum: 1_000_000, default: 1 })),
  pageSize: t.Optional(QueryInteger({ minimum: 1, maximum: 100, default: 10 })),
  search: t.Optional(t.String({ maxLength: 200 })),
  status: t.Optional(Enum(STATUSES)),
});

export const PipelineModel = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  chunkingStrategy: t.String(),
  chunkSize: StrictInteger(),
  chunkOverlap: StrictInteger(),
  embeddingModel: t.String(),
  embeddingDimensions: t.Union([StrictInteger(), t.Null()], { description: "Learned on first use of the model." }),
  vectorProvider: t.String(),
  retrievalTopK: StrictInteger(),
  hybridAlpha: t.Union([t.Number(), t.Null()], { description: "null = the default for the embedder." }),
  rerankModel: t.Union([t.String(), t.Null()], { description: "null = no reranking." }),
  ocrLanguages: t.Union([t.Array(t.String()), t.Null()], { description: "null = the server's RAGD_OCR_LANGUAGES." }),
  language: t.String({ description: "auto, a language code, or legacy (made before the setting existed)." }),
  indexLanguage: t.String({ description: "The language setting the index that answers queries was built with." }),
  queryLog: QueryLogShown,
  status: Enum(STATUSES),
  sourceCount: StrictInteger(),
  chunkCount: StrictInteger(),
  createdAt: t.String({ format: "date-time" }),
  updatedAt: t.String({ format: "date-time" }),
});

export const PipelineDetail = t.Composite([
  PipelineModel,
  t.Object({
    dataSources: t.Array(SourceModel, {
      description: "The first 20 sources, oldest first; GET .../sources pages through all of them.",
    }),
  }),
]);

export const PipelinePage = t.Object({
  data: t.Array(PipelineModel),
  page: StrictInteger(),
  pageSize: StrictInteger(),
  total: StrictInteger(),
  totalPages: StrictInteger(),
});

export type PipelineCreateBody = typeof PipelineCreate.static;
export type PipelinePatchBody = typeof PipelinePatch.static;
export type Pipeline = typeof PipelineModel.static;
