/**
 * The Quality tab of a pipeline: saved evaluation sets (test queries with the
 * sources that should answer them), a run in every search mode with its overall
 * and per-query figures, and the comparisons re-indexes made (docs/API.md, Evaluation).
 */
import { useState } from "preact/hooks";
import { evals, sources as sourceApi } from "../api/endpoints";
import type { EvalSet, Pipeline } from "../api/types";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { EvalRunView } from "../components/EvalRunView";
import { EvalSetForm } from "../components/EvalSetForm";
import { TimeAgo } from "../components/TimeAgo";
import { rich, t } from "../i18n";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";

export function QualityPanel({ pipeline }: { pipeline: Pipeline }) {
  const { notify } = useApp();
  const sets = useLoad(() => evals.list(pipeline.id), [pipeline.id]);
  // Sources to choose from, and to show runs by name (JSON Lines serves larger pipelines).
  const srcs = useLoad(() => sourceApi.list(pipeline.id, { pageSize: 100, sort: "createdAt" }), [pipeline.id]);
  const names = new Map((srcs.data?.data ?? []).map((s) => [s.id, s.name]));
  const [openId, setOpenId] = useState<string | null>(null);
  const [doomed, setDoomed] = useState<EvalSet | undefined>(undefined);
  const open = sets.data?.find((s) => s.id === openId) ?? sets.data?.[0];
  const runs = useLoad(async () => (open ? evals.runs(pipeline.id, open.id) : []), [open?.id]);
  const run = useAction(async (s: EvalSet) => {
    await evals.run(pipeline.id, s.id);
    setOpenId(s.id);
    await Promise.all([sets.reload(), runs.reload()]);
  });
  const remove = useAction(async (s: EvalSet) => {
    await evals.remove(pipeline.id, s.id);
    setDoomed(undefined);
    notify(t("quality.deleted", { name: s.name }));
    await sets.reload();
  });

  return (
    <div class="stack">
      <section class="card" aria-labelledby="sets-h">
        <h2 id="sets-h">{t("quality.sets")}</h2>
        <p class="muted">{t("quality.intro")}</p>
        <ErrorNote error={sets.error} context={t("quality.loadFailed")} />
        {!sets.data ? (
          <Loading />
        ) : sets.data.length === 0 ? (
          <p class="muted">{t("quality.none")}</p>
        ) : (
          <ul class="eval-sets">
            {sets.data.map((s) => (
              <li class={s.id === open?.id ? "eval-set eval-set-open" : "eval-set"}>
                <button type="button" class="link" onClick={() => setOpenId(s.id)} aria-pressed={s.id === open?.id}>
                  {s.name}
                </button>{" "}
                <span class="muted small">
                  {t("count.queries", { count: s.queryCount })}
                  {s.lastRun && <> · {rich("quality.lastRun", { when: <TimeAgo at={s.lastRun.createdAt} /> })}</>}
                </span>
                <span class="eval-actions">
                  <button
                    type="button"
                    class="btn btn-small btn-primary"
                    disabled={run.busy}
                    onClick={() => void run.run(s)}
                  >
                    {run.busy && open?.id === s.id ? t("quality.running") : t("quality.run", { name: s.name })}
                  </button>
                  <button type="button" class="btn btn-small" onClick={() => setDoomed(s)}>
                    {t("common.deleteWhat", { name: s.name })}
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
        <ErrorNote error={run.error} context={t("quality.runFailed")} />
      </section>
      {open && (
        <section class="card" aria-labelledby="runs-h">
          <h2 id="runs-h">{t("quality.resultsOf", { name: open.name })}</h2>
          <ErrorNote error={runs.error} context={t("quality.runsFailed")} />
          {runs.data?.length === 0 && <p class="muted">{t("quality.notRun")}</p>}
          {runs.data?.map((r, i) => (i === 0 || r.kind === "reindex" ? <EvalRunView run={r} names={names} /> : null))}
        </section>
      )}
      <section class="card" aria-labelledby="new-set-h">
        <h2 id="new-set-h">{t("quality.newSet")}</h2>
        <EvalSetForm
          pipelineId={pipeline.id}
          sources={srcs.data?.data ?? []}
          onCreated={(s) => {
            notify(t("quality.saved", { name: s.name, queries: t("count.queries", { count: s.queryCount }) }));
            setOpenId(s.id);
            void sets.reload();
          }}
        />
      </section>
      {doomed && (
        <ConfirmDialog
          title={t("quality.deleteTitle", { name: doomed.name })}
          confirmLabel={t("quality.deleteSet")}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => setDoomed(undefined)}
        >
          {t("quality.deleteText")}
        </ConfirmDialog>
      )}
    </div>
  );
}
