/**
 * What the dashboard's Insight tab shows of one pipeline (docs/API.md, "Query log and
 * insight"): searches per hour with their p50/p95 latency, the most frequent queries and
 * those that found nothing relevant (from the query log), chunks indexed per minute (from
 * the documents' indexing times) and evaluation scores over time (from the runs). Every
 * read is bounded, so the answer costs the same on a busy pipeline as on a quiet one.
 */
import {
  listEvalRunsOf,
  listFrequentQueries,
  listIndexedSince,
  listQueryLog,
  listQueryTimes,
} from "../../db/repo/query-log";
import type { User } from "../../db/schema";
import type { Store } from "../../db/store";
import type { Clock } from "../../tools/clock";
import type { PipelineService } from "../pipelines/service";
import type { Insight } from "./schemas";
import type { QueryLog } from "./query-log";
import { presentQueryLog } from "./settings";
import { evaluationPoints, hourBuckets, minuteBuckets } from "./summary";

/** Searches read for the hourly figures at most; beyond it they are drawn from the newest. */
const TIMED_ROWS = 50_000;
/** Indexed sources read for the per-minute chunks at most. */
const INDEXED_ROWS = 20_000;
const TOP_QUERIES = 10;
const EVAL_RUNS = 200;
const HOUR_MS = 3_600_000;

export class InsightService {
  constructor(
    private readonly db: Store,
    private readonly pipelines: PipelineService,
    private readonly log: QueryLog,
    private readonly clock: Pick<Clock, "now">,
  ) {}

  /** The pipeline's insight over the last `hours` hours. */
  async insight(user: User, id: string, hours: number): Promise<Insight> {
    const pipeline = await this.pipelines.own(user, id);
    const until = this.clock.now();
    const since = new Date(Math.floor((until - (hours - 1) * HOUR_MS) / HOUR_MS) * HOUR_MS).toISOString();
    const r = this.db.reader;
    const [times, frequent, noRelevant, indexed, runs] = await Promise.all([
      listQueryTimes(r, id, since, TIMED_ROWS),
      listFrequentQueries(r, id, since, { limit: TOP_QUERIES }),
      listFrequentQueries(r, id, since, { limit: TOP_QUERIES, noRelevant: true }),
      listIndexedSince(r, id, since, INDEXED_ROWS),
      listEvalRunsOf(r, id, EVAL_RUNS),
    ]);
    return {
      pipelineId: id,
      hours,
      since,
      until: new Date(until).toISOString(),
      queryLog: presentQueryLog(pipeline, this.log.allowed),
      queries: { total: times.length, sampled: times.length >= TIMED_ROWS, perHour: hourBuckets(times, since, hours) },
      frequent: frequent.map(presentFrequent),
      noRelevant: noRelevant.map(presentFrequent),
      ingestion: { perMinute: minuteBuckets(indexed) },
      evaluations: evaluationPoints(runs),
    };
  }

  /** A page of the pipeline's logged searches, newest first. */
  async entries(user: User, id: string, page: number, pageSize: number) {
    await this.pipelines.own(user, id);
    const rows = await listQueryLog(this.db.reader, id, pageSize, (page - 1) * pageSize);
    const data = rows.map(({ collectionId: _c, filter, noRelevant, ...row }) => ({
      ...row,
      filter: filter === null ? null : JSON.parse(filter),
      noRelevantResults: noRelevant,
    }));
    return { data, page, pageSize };
  }
}

const presentFrequent = (f: { query: string; count: number; lastAt: string | null }) => ({
  query: f.query,
  count: Number(f.count),
  lastAt: f.lastAt ?? "",
});
