/**
 * A strip above a pipeline's sources while ragd ingests (or re-indexes, which it says): how
 * many sources are queued and processing, the chunks of those processing, the rate in
 * chunks a minute, and about how long the rest will take. It reads the per-status counts and
 * chunk totals the sources list already carries, which follow the pipeline's event stream
 * (lib/source-refresh.ts), so it costs no request.
 */
import { useRef } from "preact/hooks";
import type { SourcePage } from "../api/types";
import { t } from "../i18n";
import { formatFixed, formatNumber } from "../lib/format";
import { ProgressBar } from "./ProgressBar";

type Counts = SourcePage["counts"];
type Ingest = SourcePage["ingest"];

/** Throughput is measured over this window. */
const WINDOW_MS = 60_000;

interface Sample {
  at: number;
  /** What has been done at that moment (sources finished, or chunks embedded). */
  done: number;
}

/**
 * Things done per minute, from the totals seen over the last minute (`done` only grows while
 * work goes on); null in the first seconds of watching.
 */
export function useThroughput(done: number | undefined): number | null {
  const samples = useRef<Sample[]>([]);
  if (done === undefined) return null;
  const now = Date.now();
  const list = samples.current;
  if (list.at(-1)?.done !== done) list.push({ at: now, done });
  // A sample is pushed at every change, so the count held still from one sample to the next.
  while (list.length > 1 && list[1]!.at <= now - WINDOW_MS) list.shift();
  const from = Math.max(list[0]!.at, now - WINDOW_MS);
  if (now - from < 3000) return null;
  // A delete lowers the count: never a negative rate.
  return (Math.max(0, done - list[0]!.done) / (now - from)) * 60_000;
}

/** "about 3 min", "under a minute", or nothing when unknown. */
function eta(left: number, perMinute: number | null): string {
  if (!perMinute || perMinute <= 0) return "";
  const minutes = left / perMinute;
  if (minutes < 1) return ` · ${t("ingest.underMinute")}`;
  if (minutes < 90) return ` · ${t("ingest.minutesLeft", { n: Math.round(minutes) })}`;
  return ` · ${t("ingest.hoursLeft", { n: Math.round(minutes / 60) })}`;
}

/** Shown only while a source is queued or processing. */
export function IngestStrip({ counts, ingest }: { counts: Counts | undefined; ingest: Ingest | undefined }) {
  const perMinute = useThroughput(counts ? counts.ready + counts.failed : undefined);
  // A source finishing moves its chunks from done to ready: their sum only grows.
  const chunksPerMinute = useThroughput(ingest ? ingest.chunksReady + ingest.chunksDone : undefined);
  const started = useRef<number | null>(null);
  if (!counts) return null;
  const left = counts.queued + counts.processing;
  const done = counts.ready + counts.failed;
  if (left === 0) {
    started.current = null;
    return null;
  }
  // The bar covers this run of ingestion: what was finished when the strip appeared does not count.
  started.current ??= done;
  const finished = done - started.current;
  const rate =
    perMinute === null ? "" : ` · ${t("ingest.rate", { n: formatFixed(perMinute, perMinute < 10 ? 1 : 0) })}`;
  const chunkRate = chunksPerMinute
    ? ` · ${t("ingest.chunkRate", { n: formatNumber(Math.round(chunksPerMinute)) })}`
    : "";
  // With nothing queued, what is left is known in chunks: the time left follows them.
  const chunksLeft = ingest && counts.queued === 0 ? ingest.chunksTotal - ingest.chunksDone : null;
  return (
    <div class="ingest-strip note note-info" role="status" aria-live="polite">
      <strong>{t(ingest?.reindex ? "ingest.reindexing" : "ingest.ingesting")}</strong>{" "}
      {t("ingest.counts", { processing: counts.processing, queued: counts.queued })}
      {ingest && ingest.chunksTotal > 0 && (
        <> · {t("ingest.chunks", { done: formatNumber(ingest.chunksDone), total: formatNumber(ingest.chunksTotal) })}</>
      )}
      {rate}
      {chunkRate}
      {chunksLeft !== null && chunksLeft > 0 ? eta(chunksLeft, chunksPerMinute) : eta(left, perMinute)}
      <ProgressBar
        value={finished}
        max={finished + left}
        label={t("ingest.bar")}
        text={t("upload.of", { done: finished, total: finished + left })}
      />
    </div>
  );
}
