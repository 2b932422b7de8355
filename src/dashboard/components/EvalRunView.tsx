/**
 * One evaluation run: the overall figures per search mode, and a per-query table
 * for the mode chosen. A re-index comparison shows its decision and both indexes'
 * figures instead (docs/API.md, Evaluation).
 */
import { useState } from "preact/hooks";
import type { EvalFigures, EvalGateResult, EvalRun, EvalRunResult, QueryMode } from "../api/types";
import { rich, t } from "../i18n";
import { formatFixed } from "../lib/format";
import { Segmented } from "./Segmented";
import { TimeAgo } from "./TimeAgo";

const pct = (x: number) => formatFixed(x, 3);
const FIGURE_LABELS: [keyof EvalFigures, string][] = [
  ["hitAt1", "hit@1"],
  ["hitAtK", "hit@k"],
  ["mrr", "MRR"],
  ["ndcgAt10", "nDCG@10"],
];

interface Props {
  run: EvalRun;
  /** Source id → name, to show expected and found sources by name. */
  names: Map<string, string>;
}

export function EvalRunView({ run, names }: Props) {
  if (run.kind === "reindex") return <GateView run={run} result={run.result as EvalGateResult} />;
  return <RunView run={run} result={run.result as EvalRunResult} names={names} />;
}

function Overall({ result, caption }: { result: EvalRunResult; caption: string }) {
  return (
    <div class="table-scroll">
      <table class="table">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t("eval.mode")}</th>
            {FIGURE_LABELS.map(([, l]) => (
              <th scope="col">{l}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {result.modes.map((m) => (
            <tr>
              <th scope="row">{m}</th>
              {FIGURE_LABELS.map(([k]) => (
                <td class="num">{pct(result.overall[m]![k])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunView({ run, result, names }: { run: EvalRun; result: EvalRunResult; names: Map<string, string> }) {
  const [mode, setMode] = useState<QueryMode>(result.modes.includes("hybrid") ? "hybrid" : result.modes[0]!);
  const name = (id: string) => names.get(id) ?? id;
  return (
    <div class="stack">
      <p class="muted small">
        {rich("eval.runLine", {
          when: <TimeAgo at={run.createdAt} />,
          queries: t("count.queries", { count: result.evaluated }),
          k: result.k,
          ms: t("common.ms", { ms: result.durationMs }),
        })}
        {!result.complete && ` · ${t("eval.stopped")}`}
      </p>
      <Overall result={result} caption={t("eval.overall")} />
      <Segmented
        legend={t("eval.perQueryMode")}
        value={mode}
        options={result.modes.map((m) => [m, m])}
        onChange={setMode}
      />
      <div class="table-wrap">
        <table class="table" aria-label={t("eval.perQuery")}>
          <thead>
            <tr>
              <th scope="col">{t("common.query")}</th>
              <th scope="col">{t("eval.expected")}</th>
              {FIGURE_LABELS.map(([, l]) => (
                <th scope="col">{l}</th>
              ))}
              <th scope="col">{t("eval.topFound")}</th>
            </tr>
          </thead>
          <tbody>
            {result.queries.map((q) => {
              const f = q.modes[mode];
              return (
                <tr class={f && f.hitAtK === 0 ? "row-miss" : undefined}>
                  <td>{q.query}</td>
                  <td>{q.expectedSourceIds.map(name).join(", ")}</td>
                  {FIGURE_LABELS.map(([k]) => (
                    <td class="num">{f ? pct(f[k]) : "–"}</td>
                  ))}
                  <td class="muted">{f?.rankedSourceIds.slice(0, 3).map(name).join(", ")}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function GateView({ run, result }: { run: EvalRun; result: EvalGateResult }) {
  const kept = result.decision === "kept";
  return (
    <div class={`note ${kept ? "note-warn" : "note-info"}`} role="status">
      <div>
        <strong>
          {rich("eval.gate", {
            when: <TimeAgo at={run.createdAt} />,
            decision: kept ? t("eval.kept") : t("eval.switched"),
          })}
        </strong>{" "}
        ({result.reason}).
        {result.serving && result.candidate && (
          <span>
            {" "}
            {t("eval.gateFigures", {
              serving: pct(result.serving.overall.hybrid?.ndcgAt10 ?? 0),
              candidate: pct(result.candidate.overall.hybrid?.ndcgAt10 ?? 0),
              tolerance: result.tolerance,
            })}
          </span>
        )}
      </div>
    </div>
  );
}
