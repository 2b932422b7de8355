/** Schemas of the evaluation API (docs/API.md, Evaluation). */
import { t } from "elysia";
import { Enum, Name, StrictInteger } from "../../http/schemas";
import { SEARCH_MODES } from "../../retrieval/request";

/** At most this many queries in a set. */
export const MAX_EVAL_QUERIES = 1000;
/** At most this many expected sources per query. */
export const MAX_EXPECTED_SOURCES = 100;

const EvalQueryModel = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 100_000, description: "1..8000 characters after trimming." }),
    expectedSourceIds: t.Array(t.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: MAX_EXPECTED_SOURCES,
      description: "Ids (or externalIds) of this pipeline's sources that answer the query.",
    }),
  },
  { additionalProperties: false },
);

export const EvalSetCreate = t.Object(
  {
    name: Name(200),
    queries: t.Optional(t.Array(EvalQueryModel, { maxItems: MAX_EVAL_QUERIES })),
    jsonl: t.Optional(
      t.String({
        description: 'The queries as JSON Lines instead: one {"query": "…", "sources": ["…"]} per line.',
      }),
    ),
  },
  { additionalProperties: false, description: "Exactly one of queries and jsonl." },
);

const FiguresModel = t.Object({
  hitAt1: t.Number(),
  hitAtK: t.Number(),
  mrr: t.Number(),
  ndcgAt10: t.Number(),
});
const ByMode = <T extends ReturnType<typeof t.Object>>(x: T) =>
  t.Object({ keyword: t.Optional(x), vector: t.Optional(x), hybrid: t.Optional(x) });

export const EvalResultModel = t.Object({
  k: StrictInteger(),
  modes: t.Array(t.String()),
  generation: StrictInteger(),
  complete: t.Boolean({ description: "False when the time budget ran out before every query was asked." }),
  evaluated: StrictInteger(),
  durationMs: StrictInteger(),
  overall: ByMode(FiguresModel),
  queries: t.Array(
    t.Object({
      query: t.String(),
      expectedSourceIds: t.Array(t.String()),
      modes: ByMode(t.Composite([FiguresModel, t.Object({ rankedSourceIds: t.Array(t.String()) })])),
    }),
  ),
});

export const EvalRunModel = t.Object({
  id: t.String(),
  setId: t.String(),
  kind: t.Union([t.Literal("run"), t.Literal("reindex")]),
  createdAt: t.String(),
  /** kind run: the figures; kind reindex: both generations' and the decision. */
  result: t.Unknown(),
});

export const EvalSetModel = t.Object({
  id: t.String(),
  pipelineId: t.String(),
  name: t.String(),
  queryCount: StrictInteger(),
  queries: t.Optional(t.Array(t.Object({ query: t.String(), expectedSourceIds: t.Array(t.String()) }))),
  createdAt: t.String(),
  updatedAt: t.String(),
  lastRun: t.Optional(t.Union([EvalRunModel, t.Null()])),
});

export const EvalRunBody = t.Object(
  {
    modes: t.Optional(
      t.Array(Enum(SEARCH_MODES), { minItems: 1, maxItems: 3, uniqueItems: true, description: "Default: all three." }),
    ),
    k: t.Optional(StrictInteger({ minimum: 1, maximum: 100, description: "Results per query; default 10." })),
  },
  { additionalProperties: false },
);

export type EvalSetCreateBody = typeof EvalSetCreate.static;
export type EvalRunBodyType = typeof EvalRunBody.static;

/** The optional body of POST …/reindex: switch when built (always), or only if not worse on a set. */
export const ReindexBody = t.Object(
  {
    switch: t.Optional(Enum(["always", "ifNotWorse"] as const, { description: "Default always." })),
    evalSet: t.Optional(t.String({ description: "The evaluation set that ifNotWorse runs; required with it." })),
  },
  { additionalProperties: false },
);
export type ReindexBodyType = typeof ReindexBody.static;
