/** Evaluation routes (docs/API.md, Evaluation): sets of test queries under a pipeline, and their runs. */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/schemas";
import { unknownFields } from "../../http/unknown-fields";
import type { AuthService } from "../auth/service";
import type { PipelineService } from "../pipelines/service";
import { EvalRunBody, EvalRunModel, EvalSetCreate, EvalSetModel } from "./schemas";
import type { EvalService } from "./service";

const Params = t.Object({ id: t.String() });
const SetParams = t.Object({ id: t.String(), evalId: t.String() });
const Session = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export function evalRoutes(auth: AuthService, pipelines: PipelineService, evals: EvalService) {
  return new Elysia({ prefix: "/api/rag/pipelines/:id/evals", tags: ["Evaluation"] })
    .use(sessionAuth(auth))
    .use(unknownFields)
    .get("", async ({ user, params }) => await evals.list(await pipelines.own(user, params.id)), {
      session: true,
      params: Params,
      response: { 200: t.Array(EvalSetModel), ...Session },
      detail: { summary: "A pipeline's evaluation sets, newest first, each with its latest run" },
    })
    .post(
      "",
      async ({ user, params, body, set }) => {
        set.status = 201;
        return await evals.create(await pipelines.own(user, params.id), body);
      },
      {
        session: true,
        params: Params,
        parse: "json",
        rejectUnknownFields: EvalSetCreate,
        body: EvalSetCreate,
        response: { 201: EvalSetModel, 400: ErrorBody, ...Session },
        detail: {
          summary: "Save test queries with the sources that should answer them (typed, or as JSON Lines)",
        },
      },
    )
    .get("/:evalId", async ({ user, params }) => await evals.get(await pipelines.own(user, params.id), params.evalId), {
      session: true,
      params: SetParams,
      response: { 200: EvalSetModel, ...Session },
      detail: { summary: "One evaluation set with its queries" },
    })
    .delete(
      "/:evalId",
      async ({ user, params }) => await evals.remove(await pipelines.own(user, params.id), params.evalId),
      {
        session: true,
        params: SetParams,
        response: { 200: Deleted, ...Session },
        detail: { summary: "Delete an evaluation set and its runs" },
      },
    )
    .get(
      "/:evalId/runs",
      async ({ user, params }) => await evals.runs(await pipelines.own(user, params.id), params.evalId),
      {
        session: true,
        params: SetParams,
        response: { 200: t.Array(EvalRunModel), ...Session },
        detail: { summary: "The set's 20 newest runs and re-index comparisons, newest first" },
      },
    )
    .post(
      "/:evalId/run",
      async ({ user, params, body }) =>
        await evals.run(await pipelines.own(user, params.id), params.evalId, body ?? {}),
      {
        session: true,
        params: SetParams,
        rejectUnknownFields: EvalRunBody,
        body: t.Optional(EvalRunBody),
        response: { 200: EvalRunModel, 400: ErrorBody, ...Session, 409: ErrorBody, 503: ErrorBody },
        detail: { summary: "Run the set on the serving index in each mode: hit@1, hit@k, MRR and nDCG@10" },
      },
    );
}
