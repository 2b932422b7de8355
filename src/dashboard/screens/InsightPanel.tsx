/**
 * The Insight tab of a pipeline (docs/API.md, "Query log and insight"): searches per hour
 * and their p50/p95 latency, the most frequent queries and those that found nothing
 * relevant (from the opt-in query log), chunks indexed per minute and evaluation scores
 * over time. Charts are plain SVG (components/BarChart.tsx, LineChart.tsx).
 */
import { useState } from "preact/hooks";
import { type Insight, insight as insightApi } from "../api/insight";
import type { Pipeline } from "../api/types";
import { BarChart } from "../components/BarChart";
import { Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { LineChart } from "../components/LineChart";
import { Segmented } from "../components/Segmented";
import { TimeAgo } from "../components/TimeAgo";
import { type Key, t } from "../i18n";
import { formatDate, formatFixed, formatNumber } from "../lib/format";
import { useLoad } from "../lib/hooks";

type Window = "6" | "24" | "168";
const WINDOWS: [Window, Key][] = [
  ["6", "insight.last6h"],
  ["24", "insight.last24h"],
  ["168", "insight.last7d"],
];
const MODES = ["hybrid", "vector", "keyword"] as const;

export function InsightPanel({ pipeline }: { pipeline: Pipeline }) {
  const [hours, setHours] = useState<Window>("24");
  const data = useLoad(() => insightApi.get(pipeline.id, Number(hours)), [pipeline.id, hours]);
  const options = WINDOWS.map(([v, k]): [Window, string] => [v, t(k)]);
  return (
    <div class="stack insight">
      <div class="toolbar">
        <Segmented legend={t("insight.window")} value={hours} options={options} onChange={setHours} />
      </div>
      <ErrorNote error={data.error} context={t("insight.loadFailed")} />
      {!data.data ? data.error ? null : <Loading /> : <Figures insight={data.data} />}
    </div>
  );
}

function Figures({ insight: d }: { insight: Insight }) {
  return (
    <>
      <LogNote insight={d} />
      {d.queryLog.enabled || d.queries.total > 0 ? <Searches insight={d} /> : null}
      <section class="card" aria-labelledby="insight-ingest-h">
        <h2 id="insight-ingest-h">{t("insight.ingestion")}</h2>
        {d.ingestion.perMinute.length === 0 ? (
          <p class="muted">{t("insight.noIngestion")}</p>
        ) : (
          <BarChart
            label={t("insight.ingestion")}
            summary={t("insight.chunksSummary", {
              count: formatNumber(d.ingestion.perMinute.reduce((n, m) => n + m.chunks, 0)),
            })}
            bars={d.ingestion.perMinute.map((m) => ({
              label: formatDate(m.minute),
              value: m.chunks,
              title: `${formatDate(m.minute)}: ${formatNumber(m.chunks)}`,
            }))}
          />
        )}
      </section>
      <Evaluations insight={d} />
    </>
  );
}

/** Why there may be no searches to show: the log is off here, or forbidden on this server. */
function LogNote({ insight: d }: { insight: Insight }) {
  if (d.queryLog.enabled) return null;
  const text = d.queryLog.allowed ? t("insight.logOff") : t("insight.logForbidden");
  return <p class="note note-info">{text}</p>;
}

function Searches({ insight: d }: { insight: Insight }) {
  const hours = d.queries.perHour;
  const edges: [string, string] = [formatDate(hours[0]!.hour), formatDate(hours[hours.length - 1]!.hour)];
  const latency = (k: "p50Ms" | "p95Ms", name: string) => ({
    name,
    points: hours.map((h) => ({
      x: Date.parse(h.hour),
      y: h[k],
      title: `${formatDate(h.hour)}: ${h[k] === null ? "–" : `${formatFixed(h[k], 1)} ms`}`,
    })),
  });
  const summary = t("insight.searchesSummary", { count: formatNumber(d.queries.total) });
  return (
    <>
      <section class="card" aria-labelledby="insight-q-h">
        <h2 id="insight-q-h">{t("insight.queries")}</h2>
        <p class="muted">
          {summary}
          {d.queries.sampled && ` ${t("insight.sampled")}`}
        </p>
        <BarChart
          label={t("insight.queries")}
          summary={summary}
          bars={hours.map((h) => ({
            label: formatDate(h.hour),
            value: h.count,
            title: `${formatDate(h.hour)}: ${formatNumber(h.count)}`,
          }))}
        />
        <h3>{t("insight.latency")}</h3>
        <LineChart
          label={t("insight.latency")}
          summary={summary}
          series={[latency("p50Ms", t("insight.p50")), latency("p95Ms", t("insight.p95"))]}
          xLabels={edges}
        />
      </section>
      <QueryTable id="insight-top-h" title={t("insight.frequent")} rows={d.frequent} />
      <QueryTable id="insight-none-h" title={t("insight.noRelevant")} rows={d.noRelevant} />
    </>
  );
}

function QueryTable({ id, title, rows }: { id: string; title: string; rows: Insight["frequent"] }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {rows.length === 0 ? (
        <p class="muted">{t("insight.noneYet")}</p>
      ) : (
        <div class="table-wrap">
          <table class="table" aria-labelledby={id}>
            <thead>
              <tr>
                <th scope="col">{t("insight.query")}</th>
                <th scope="col" class="num">
                  {t("insight.count")}
                </th>
                <th scope="col">{t("insight.lastAsked")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.query}>
                  <td class="insight-query">{r.query}</td>
                  <td class="num">{formatNumber(r.count)}</td>
                  <td>
                    <TimeAgo at={r.lastAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Evaluations({ insight: d }: { insight: Insight }) {
  const runs = d.evaluations;
  const series = MODES.map((m) => ({
    name: t(`mode.${m}`),
    points: runs.map((r) => ({
      x: Date.parse(r.at),
      y: r.ndcgAt10[m] ?? null,
      title: `${r.setName}, ${formatDate(r.at)}: ${r.ndcgAt10[m] === undefined ? "–" : formatFixed(r.ndcgAt10[m], 3)}`,
    })),
  })).filter((s) => s.points.some((p) => p.y !== null));
  return (
    <section class="card" aria-labelledby="insight-eval-h">
      <h2 id="insight-eval-h">{t("insight.evals")}</h2>
      {runs.length === 0 ? (
        <p class="muted">{t("insight.noEvals")}</p>
      ) : (
        <LineChart
          label={t("insight.evals")}
          summary={t("insight.evalsSummary", { count: formatNumber(runs.length) })}
          series={series}
          max={1}
          xLabels={[formatDate(runs[0]!.at), formatDate(runs[runs.length - 1]!.at)]}
        />
      )}
    </section>
  );
}
