/**
 * Schemas of the query endpoint, and the search body knowledge-base search shares
 * (docs/API.md, Query). Its static type is retrieval/'s SearchRequest.
 */
import { t } from "elysia";
import { Enum, StrictInteger } from "../../http/schemas";
import { SEARCH_MODES } from "../../retrieval/request";

export { SEARCH_MODES } from "../../retrieval/request";

const META_KEY = "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$";

/** `boost` (retrieval/boost.ts): scale scores by metadata matches and by recency, weights adding up to at most 1. */
const BoostModel = t.Object(
  {
    match: t.Optional(
      t.Record(t.String({ pattern: META_KEY }), t.Union([t.String({ maxLength: 2000 }), t.Number(), t.Boolean()]), {
        minProperties: 1,
        maxProperties: 10,
        description:
          "1..10 metadata keys and the value each should have (an array value matches when one element does).",
      }),
    ),
    matchWeight: t.Optional(
      t.Number({ minimum: 0, maximum: 1, description: "The share of the score the match decides (default 0.3)." }),
    ),
    recency: t.Optional(
      t.Object(
        {
          key: t.Optional(
            t.String({
              pattern: META_KEY,
              description: "A metadata key holding an ISO 8601 date; default: the source's indexedAt.",
            }),
          ),
          halfLifeDays: t.Number({ minimum: 0.001, maximum: 36500, description: "Age at which the boost halves." }),
          weight: t.Optional(
            t.Number({ minimum: 0, maximum: 1, description: "The share of the score recency decides (default 0.3)." }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      "score × (1 − W + matchWeight × share of match conditions met + recency.weight × 0.5^(age / halfLife)), W the weights' sum (at most 1).",
  },
);

/** The body of both search endpoints: the query endpoint and knowledge-base search. */
export const SearchBody = t.Object(
  {
    // The 8000 bound applies after trimming (retrieval/request.ts); this only caps what is read.
    query: t.String({ minLength: 1, maxLength: 100_000, description: "1..8000 characters after trimming." }),
    topK: t.Optional(
      StrictInteger({
        minimum: 1,
        maximum: 100,
        description: "Default: the pipeline's retrievalTopK (5 for a knowledge base).",
      }),
    ),
    mode: t.Optional(Enum(SEARCH_MODES, { description: "Default hybrid." })),
    minScore: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    hybridAlpha: t.Optional(
      t.Number({ minimum: 0, maximum: 1, description: "Hybrid blend: 0 keyword only … 1 vector only." }),
    ),
    diversity: t.Optional(
      t.Number({ minimum: 0, maximum: 1, description: "0 (default) off … 1: prefer results unlike those above." }),
    ),
    expand: t.Optional(
      t.Object(
        {
          chars: t.Optional(StrictInteger({ minimum: 1, maximum: 5000 })),
          chunks: t.Optional(StrictInteger({ minimum: 1, maximum: 5 })),
        },
        {
          additionalProperties: false,
          description:
            "Each result's context from the stored source: exactly one of {chars: N} characters each side or {chunks: N} neighbouring chunks each side.",
        },
      ),
    ),
    highlights: t.Optional(
      t.Boolean({ description: "Each result's highlights: character ranges of the query's terms in its content." }),
    ),
    groupBy: t.Optional(
      t.Literal("source", { description: "One group per source: the best perSource chunks of each of topK sources." }),
    ),
    perSource: t.Optional(
      StrictInteger({ minimum: 1, maximum: 10, description: 'With groupBy: "source": chunks per source (default 1).' }),
    ),
    facets: t.Optional(
      t.Array(t.String({ pattern: META_KEY }), {
        maxItems: 10,
        description:
          "Metadata keys (or sourceType, externalId) whose 10 most frequent values to count among the chunks the filter keeps.",
      }),
    ),
    boost: t.Optional(BoostModel),
    filter: t.Optional(
      t.Object(
        {
          sourceIds: t.Optional(
            t.Array(t.String({ maxLength: 64 }), {
              maxItems: 1000,
              description: "Only chunks of these sources (ids of up to 64 characters).",
            }),
          ),
          // Unknown here: a Record schema let [] through and turned a string into an object of
          // characters; retrieval/filter.ts checks the shape and names the field at fault.
          metadata: t.Optional(
            t.Unknown({
              description:
                'Conditions on source metadata keys, sourceType and externalId: a literal (equality) or an operator object with $eq $ne $in $nin $gt $gte $lt $lte $exists; $and/$or take arrays of such objects. Applied before ranking. Example: {"team": "hr", "year": {"$gte": 2024}}.',
            }),
          ),
        },
        { additionalProperties: false, description: "Unknown keys are 400." },
      ),
    ),
  },
  {
    // A misspelt field or an unsupported filter would silently change the results (docs/API.md, Query).
    additionalProperties: false,
  },
);

export const ResultModel = t.Object({
  content: t.String(),
  score: t.Number({ minimum: 0, maximum: 1 }),
  rerankScore: t.Optional(t.Number({ description: "The reranker's score, when the results were reranked." })),
  highlights: t.Optional(
    t.Array(t.Tuple([StrictInteger(), StrictInteger()]), {
      description: "With highlights: true: [start, end) character ranges in content of words matching the query.",
    }),
  ),
  context: t.Optional(
    t.Object(
      {
        before: t.String({ description: "The source's text from start to the hit's metadata.start." }),
        after: t.String({ description: "The source's text from the hit's metadata.end to end." }),
        start: StrictInteger(),
        end: StrictInteger(),
      },
      { description: "With expand: the text around the hit; offsets are the source's, as MCP read uses." },
    ),
  ),
  metadata: t.Object(
    {
      sourceId: t.String(),
      sourceName: t.String(),
      chunkIndex: StrictInteger(),
      externalId: t.Optional(t.String()),
    },
    {
      additionalProperties: true,
      description:
        "The reserved keys (sourceType, start, end, url, fileName…) and the source's own metadata keys, flat.",
    },
  ),
});

export const QueryResponse = t.Object({
  results: t.Array(ResultModel),
  pipelineId: t.String(),
  query: t.String(),
  topK: StrictInteger(),
  noRelevantResults: t.Boolean({
    description: "True when no result reaches the relevance floor (docs/API.md, Scores and the hybrid blend).",
  }),
  reranked: t.Optional(
    t.Boolean({ description: "Only on a pipeline with a rerankModel: whether the reranker ordered the results." }),
  ),
  warning: t.Optional(t.String({ description: "Why the results were not reranked." })),
  facets: t.Optional(
    t.Record(
      t.String(),
      t.Array(t.Object({ value: t.Union([t.String(), t.Number(), t.Boolean()]), count: StrictInteger() })),
      {
        description: "With facets: per key, its most frequent values and how many chunks hold each, most first.",
      },
    ),
  ),
  facetsTruncated: t.Optional(
    t.Literal(true, {
      description: "Only when more than 100,000 chunks matched: the counts are of the first 100,000.",
    }),
  ),
  queryLanguage: t.Optional(
    t.String({
      description:
        "The language the query was analysed as (zh, ja, de…; und when none could be told). Absent for a pipeline whose index was built before languages existed.",
    }),
  ),
});
