/**
 * Evaluation sets of a pipeline and their runs (docs/API.md, Evaluation): saved test
 * queries with the sources that should answer them, run in each search mode and
 * scored per query and overall. Runs are bounded: a set holds at most 1,000 queries,
 * a run stops asking after two minutes, one run at a time per pipeline, and a set
 * keeps its 20 newest runs.
 */
import type { Db } from "../../db/client";
import { findCollectionById } from "../../db/repo/collections";
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
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import { SEARCH_MODES, type SearchMode } from "../../retrieval/request";
import type { Searcher } from "../../retrieval/searcher";
import { evaluate, type EvalQuery, type EvalResult } from "./evaluate";
import { queriesOf, resolveSources } from "./input";
import type { EvalRunBodyType, EvalSetCreateBody, ReindexBodyType } from "./schemas";

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
    private readonly db: Store,
    private readonly searcher: Searcher,
    private readonly budgetMs = EVAL_BUDGET_MS,
  ) {}

  /** The pipeline's sets, newest first, each with its newest run. */
  async list(col: Collection) {
    const sets = await listEvalSets(this.db.reader, col.id);
    const last = await latestEvalRuns(
      this.db.reader,
      sets.map((s) => s.id),
    );
    return sets.map((s) => presentSet(s, false, last.get(s.id)));
  }

  /** Saves a set; every expected source must be one of the pipeline's. */
  async create(col: Collection, body: EvalSetCreateBody) {
    await this.checkRoom(this.db.reader, col);
    const queries = await resolveSources(this.db.reader, col.id, queriesOf(body));
    const now = new Date().toISOString();
    const row: EvalSetRow = {
      id: Bun.randomUUIDv7(),
      collectionId: col.id,
      name: body.name,
      queries: JSON.stringify(queries),
      createdAt: now,
      updatedAt: now,
    };
    await this.db.atomically(async (tx) => {
      // The pipeline may have gone since its check, and other sets come meanwhile.
      if (!(await findCollectionById(tx, col.id))) throw notFound("pipeline");
      await this.checkRoom(tx, col);
      await insertEvalSet(tx, row);
    });
    return presentSet(row, true);
  }

  /** One set with its queries. */
  async get(col: Collection, id: string) {
    const s = await this.own(col, id);
    return presentSet(s, true, (await listEvalRuns(this.db.reader, s.id, 1))[0]);
  }

  async remove(col: Collection, id: string) {
    await this.db.atomically(async (tx) => deleteEvalSet(tx, (await this.own(col, id, tx)).id));
    return { deleted: true as const, id };
  }

  /** The set's runs, newest first. */
  async runs(col: Collection, id: string): Promise<EvalRun[]> {
    return (await listEvalRuns(this.db.reader, (await this.own(col, id)).id, RUNS_KEPT)).map(presentRun);
  }

  /** Runs the set on the serving index in each mode asked (all three by default) and stores the run. */
  async run(col: Collection, id: string, body: EvalRunBodyType = {}): Promise<EvalRun> {
    const set = await this.own(col, id);
    const result = await this.exclusive(col.id, () =>
      this.evaluateSet(col, set, { modes: body.modes ?? [...SEARCH_MODES], k: body.k ?? DEFAULT_K }),
    );
    const run = await this.record(set, "run", result);
    // Deleted while it ran: as for any missing set.
    if (!run) throw notFound("evaluation set");
    return run;
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

  /**
   * Stores a run (keeping the newest RUNS_KEPT of its set) and returns it as shown;
   * undefined when the set is gone.
   */
  async record(set: EvalSetRow, kind: EvalRunRow["kind"], result: unknown): Promise<EvalRun | undefined> {
    const row: EvalRunRow = {
      id: Bun.randomUUIDv7(),
      setId: set.id,
      kind,
      result: JSON.stringify(result),
      createdAt: new Date().toISOString(),
    };
    const stored = await this.db.atomically(async (tx) => {
      if (!(await findEvalSet(tx, set.collectionId, set.id))) return false;
      await insertEvalRun(tx, row, RUNS_KEPT);
      return true;
    });
    return stored ? presentRun(row) : undefined;
  }

  /** The evaluation set a re-index must not do worse on, or null (docs/API.md, Evaluation). */
  async gateFor(col: Collection, body: ReindexBodyType = {}): Promise<string | null> {
    if ((body.switch ?? "always") === "always") {
      if (body.evalSet !== undefined)
        throw new AppError("invalid_request", 'evalSet: only used with "switch": "ifNotWorse"', [
          { field: "evalSet", message: 'only used with "switch": "ifNotWorse"' },
        ]);
      return null;
    }
    const problem =
      body.evalSet === undefined ? "is required with ifNotWorse" : "is not an evaluation set of this pipeline";
    if (body.evalSet === undefined || !(await findEvalSet(this.db.reader, col.id, body.evalSet)))
      throw new AppError("invalid_request", `evalSet: ${problem}`, [{ field: "evalSet", message: problem }]);
    return body.evalSet;
  }

  /** The set row, for the gate; undefined when it is gone. */
  findSet(col: Collection, id: string): Promise<EvalSetRow | undefined> {
    return findEvalSet(this.db.reader, col.id, id);
  }

  /** A set of the pipeline; 404 when none. `db` is a transaction's, to check and change it in one step. */
  private async own(col: Collection, id: string, db: Db = this.db.reader): Promise<EvalSetRow> {
    const s = await findEvalSet(db, col.id, id);
    if (!s) throw notFound("evaluation set");
    return s;
  }

  /** 400 when the pipeline holds the most sets it may. */
  private async checkRoom(db: Db, col: Collection): Promise<void> {
    if ((await countEvalSets(db, col.id)) >= MAX_SETS_PER_PIPELINE)
      throw new AppError("invalid_request", `a pipeline holds at most ${MAX_SETS_PER_PIPELINE} evaluation sets`);
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
