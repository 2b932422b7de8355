/** Request and response schemas of the Insight endpoints (docs/API.md, "Query log and insight"). */
import { t } from "elysia";
import { QueryInteger, StrictInteger } from "../../http/schemas";
import { QueryLogShown } from "./settings";

export const InsightQuery = t.Object({
  hours: t.Optional(QueryInteger({ minimum: 1, maximum: 168, default: 24, description: "The window, in hours." })),
});

export const QueryLogQuery = t.Object({
  page: t.Optional(QueryInteger({ minimum: 1, maximum: 10_000, default: 1 })),
  pageSize: t.Optional(QueryInteger({ minimum: 1, maximum: 100, default: 50 })),
});

const Frequent = t.Object({
  query: t.String(),
  count: StrictInteger(),
  lastAt: t.String({ format: "date-time" }),
});

const HourBucket = t.Object({
  hour: t.String({ format: "date-time", description: "The hour's start (UTC)." }),
  count: StrictInteger(),
  noRelevant: StrictInteger({ description: "Searches whose results all fell below the relevance floor." }),
  p50Ms: t.Union([t.Number(), t.Null()]),
  p95Ms: t.Union([t.Number(), t.Null()]),
});

const ModeScores = t.Object({
  keyword: t.Optional(t.Number()),
  vector: t.Optional(t.Number()),
  hybrid: t.Optional(t.Number()),
});

export const InsightModel = t.Object({
  pipelineId: t.String(),
  hours: StrictInteger(),
  since: t.String({ format: "date-time" }),
  until: t.String({ format: "date-time" }),
  queryLog: QueryLogShown,
  queries: t.Object({
    total: StrictInteger({ description: "Logged searches in the window." }),
    sampled: t.Boolean({ description: "True when the hourly figures were drawn from the newest 50,000 of them." }),
    perHour: t.Array(HourBucket),
  }),
  frequent: t.Array(Frequent, { description: "The 10 most frequent queries (case folded)." }),
  noRelevant: t.Array(Frequent, { description: "The 10 most frequent queries that found nothing relevant." }),
  ingestion: t.Object({
    perMinute: t.Array(t.Object({ minute: t.String({ format: "date-time" }), chunks: StrictInteger() }), {
      description: "Chunks of the sources indexed in each minute of the window (minutes with none left out).",
    }),
  }),
  evaluations: t.Array(
    t.Object({
      at: t.String({ format: "date-time" }),
      setId: t.String(),
      setName: t.String(),
      ndcgAt10: ModeScores,
      hitAt1: ModeScores,
    }),
    { description: "Evaluation runs, oldest first (the newest 200)." },
  ),
});

export const QueryLogEntry = t.Object({
  id: t.String(),
  at: t.String({ format: "date-time" }),
  query: t.String(),
  mode: t.String(),
  filter: t.Union([t.Unknown(), t.Null()]),
  resultCount: StrictInteger(),
  topScore: t.Union([t.Number(), t.Null()]),
  latencyMs: t.Number(),
  door: t.String({ description: "query, playground, kb or mcp." }),
  caller: t.String({ description: 'The API key\'s name, or "owner".' }),
  noRelevantResults: t.Boolean(),
});

export const QueryLogPage = t.Object({
  data: t.Array(QueryLogEntry),
  page: StrictInteger(),
  pageSize: StrictInteger(),
});

export type Insight = typeof InsightModel.static;
