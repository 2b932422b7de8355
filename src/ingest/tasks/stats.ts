/**
 * What ingestion reports about each source that ends a task: the counters and stage
 * histograms of /metrics, and one log line at info. The line names the source, its
 * type, the outcome and, for a failure, the reason (with, as `detail`, the parser's own
 * words when a parser refused the file: at most 200 characters of them); never its name.
 */
import type { Logger } from "../../log";
import { Counter, Histogram } from "../../tools/prom";
import type { StageTimes } from "../job-types";
import type { Outcome, SourceResult } from "./outcome";

/** Stage durations span a few milliseconds (a short text) to minutes (a big PDF on a slow model). */
const STAGE_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface EndedTask {
  sourceId: string;
  collectionId: string;
  type: string;
  result: SourceResult;
  outcome: Outcome;
  /** Seconds per worker stage, plus `write`: the wait for the task's rows to be committed. */
  stages: StageTimes & { write?: number };
  seconds: number;
}

export class IngestStats {
  private readonly sources = new Counter(
    "ragd_ingest_sources_total",
    "Ingestion tasks that ended, by outcome (ready, unchanged, failed, retry) and source type.",
  );
  private readonly stages = new Histogram(
    "ragd_ingest_stage_duration_seconds",
    "Time one source spent in an ingestion stage: fetch, extract, chunk, embed, write.",
    STAGE_BUCKETS,
  );

  constructor(private readonly log: Logger) {}

  /** Counts an ended task and writes its log line. */
  record(t: EndedTask): void {
    this.sources.inc({ outcome: t.result, type: t.type });
    for (const [stage, seconds] of Object.entries(t.stages)) {
      if (seconds !== undefined) this.stages.observe({ stage }, seconds);
    }
    const fields: Record<string, unknown> = {
      sourceId: t.sourceId,
      collectionId: t.collectionId,
      type: t.type,
      outcome: t.result,
      seconds: Math.round(t.seconds * 1000) / 1000,
    };
    if (t.outcome.ok) {
      if (t.result === "ready") fields.chunks = t.outcome.chunkCount;
      this.log.info(t.result === "ready" ? "source ready" : "source unchanged", fields);
    } else {
      fields.error = t.outcome.message;
      if (t.outcome.detail) fields.detail = t.outcome.detail;
      this.log.info(t.result === "retry" ? "source will be retried" : "source failed", fields);
    }
  }

  /** Tasks counted so far with this outcome and type (for tests and the dashboard's figures). */
  count(result: SourceResult, type: string): number {
    return this.sources.get({ outcome: result, type });
  }

  render(): string[] {
    return [...this.sources.render(), ...this.stages.render()];
  }
}
