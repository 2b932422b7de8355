/**
 * Evaluation sets of a pipeline and their runs (docs/API.md, Evaluation): saved test
 * queries with the sources that should answer them, run in each search mode and
 * scored per query and overall. Runs are bounded: a set holds at most 1,000 queries,
 * a run stops asking after two minutes, one run at a time per pipeline, and a set
 * keeps its 20 newest runs.
 */
import type { Db } from "../../db/client";
import {
  countEvalSets,
  deleteEvalSet,
  findEvalSet,
  insertEvalRun,
  insertEvalSet,
  latestEvalRuns,
  listEvalRuns,
  listEvalSets,
} from "../../db/repo/evals";
import type { Collection, EvalRunRow, EvalSetRow } from "../../db/schema";
import { AppError, notFound } from "../../http/errors";
import { SEARCH_MODES, type SearchMode } from "../../retrieval/request";
import type { Searcher } from "../../retrieval/searcher";
import { evaluate, type EvalQuery, type EvalResult } from "./evaluate";
import { queriesOf, resolveSources } from "./input";
import type { EvalRunBodyType, EvalSetCreateBody, ReindexBodyType } from "./model";

export const MAX_SETS_PER_PIPELINE = 50;
export const RUNS_KEPT = 20;
/** A run stops asking new queries after this long (its figures then say complete: false). */
export const EVAL_BUDGET_MS = 120_000;
export const DEFAULT_K = 10;

const presentRun = (r: EvalRunRow) => ({
  id: r.id,
  setId: r.setId,
  kind: r.kind,
  createdAt: r.createdAt,
  result: JSON.parse(r.result) as unknown,
});

export type EvalRun = ReturnType<typeof presentRun>;

function presentSet(s: EvalSetRow, withQueries: boolean, lastRun?: EvalRunRow) {
  const queries = JSON.parse(s.queries) as EvalQuery[];
  return {
    id: s.id,
    pipelineId: s.collectionId,
    name: s.name,
    queryCount: queries.length,
    ...(withQueries ? { queries } : {}),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastRun: lastRun ? presentRun(lastRun) : null,
  };
}

export class EvalService {
  /** Pipelines with a run in progress: one at a time each. */
  private readonly running = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly searcher: Searcher,
    private readonly budgetMs = EVAL_BUDGET_MS,
  ) {}

  /** The pipeline's sets, newest first, each with its newest run. */
  list(col: Collection) {
    const sets = listEvalSets(this.db, col.id);
    const last = latestEvalRuns(
      this.db,
      sets.map((s) => s.id),
    );
    return sets.map((s) => presentSet(s, false, last.get(s.id)));
  }

  /** Saves a set; every expected source must be one of the pipeline's. */
  create(col: Collection, body: EvalSetCreateBody) {
    if (countEvalSets(this.db, col.id) >= MAX_SETS_PER_PIPELINE)
      throw new AppError("invalid_request", `a pipeline holds at most ${MAX_SETS_PER_PIPELINE} evaluation sets`);
    const queries = resolveSources(this.db, col.id, queriesOf(body));
    const now = new Date().toISOString();
    const row: EvalSetRow = {
      id: Bun.randomUUIDv7(),
      collectionId: col.id,
      name: body.name,
      queries: JSON.stringify(queries),
      createdAt: now,
      updatedAt: now,
    };
    insertEvalSet(this.db, row);
    return presentSet(row, true);
  }

  /** One set with its queries. */
  get(col: Collection, id: string) {
    const s = this.own(col, id);
    return presentSet(s, true, listEvalRuns(this.db, s.id, 1)[0]);
  }

  remove(col: Collection, id: string) {
    deleteEvalSet(this.db, this.own(col, id).id);
    return { deleted: true as const, id };
  }

  /** The set's runs, newest first. */
  runs(col: Collection, id: string): EvalRun[] {
    return listEvalRuns(this.db, this.own(col, id).id, RUNS_KEPT).map(presentRun);
  }

  /** Runs the set on the serving index in each mode asked (all three by default) and stores the run. */
  async run(col: Collection, id: string, body: EvalRunBodyType = {}): Promise<EvalRun> {
    const set = this.own(col, id);
    const result = await this.exclusive(col.id, () =>
      this.evaluateSet(col, set, { modes: body.modes ?? [...SEARCH_MODES], k: body.k ?? DEFAULT_K }),
    );
    return this.record(set.id, "run", result);
  }

  /** Runs a set on one generation; used by runs and by the re-index gate. */
  evaluateSet(
    col: Collection,
    set: EvalSetRow,
    o: { modes: SearchMode[]; k: number; generation?: number },
  ): Promise<EvalResult> {
    const queries = JSON.parse(set.queries) as EvalQuery[];
    return evaluate(this.searcher, col, queries, { ...o, budgetMs: this.budgetMs });
  }

  /** Stores a run (keeping the newest RUNS_KEPT of its set) and returns it as shown. */
  record(setId: string, kind: EvalRunRow["kind"], result: unknown): EvalRun {
    const row: EvalRunRow = {
      id: Bun.randomUUIDv7(),
      setId,
      kind,
      result: JSON.stringify(result),
      createdAt: new Date().toISOString(),
    };
    insertEvalRun(this.db, row, RUNS_KEPT);
    return presentRun(row);
  }

  /** The evaluation set a re-index must not do worse on, or null (docs/API.md, Evaluation). */
  gateFor(col: Collection, body: ReindexBodyType = {}): string | null {
    if ((body.switch ?? "always") === "always") {
      if (body.evalSet !== undefined)
        throw new AppError("invalid_request", 'evalSet: only used with "switch": "ifNotWorse"', [
          { field: "evalSet", message: 'only used with "switch": "ifNotWorse"' },
        ]);
      return null;
    }
    const problem =
      body.evalSet === undefined ? "is required with ifNotWorse" : "is not an evaluation set of this pipeline";
    if (body.evalSet === undefined || !findEvalSet(this.db, col.id, body.evalSet))
      throw new AppError("invalid_request", `evalSet: ${problem}`, [{ field: "evalSet", message: problem }]);
    return body.evalSet;
  }

  /** The set row, for the gate; undefined when it is gone. */
  findSet(col: Collection, id: string): EvalSetRow | undefined {
    return findEvalSet(this.db, col.id, id);
  }

  private own(col: Collection, id: string): EvalSetRow {
    const s = findEvalSet(this.db, col.id, id);
    if (!s) throw notFound("evaluation set");
    return s;
  }

  private async exclusive<T>(collectionId: string, fn: () => Promise<T>): Promise<T> {
    if (this.running.has(collectionId))
      throw new AppError("conflict", "an evaluation of this pipeline is already running; try again when it ends");
    this.running.add(collectionId);
    try {
      return await fn();
    } finally {
      this.running.delete(collectionId);
    }
  }
}
