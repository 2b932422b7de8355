/**
 * "Saving does not re-index": the notice under the settings form, with the
 * Re-index now action. After a change to chunking or the model it turns into a
 * warning, since existing sources still carry the old chunks and embeddings.
 * With an evaluation set chosen, the new index switches in only if it is not worse
 * on that set (docs/API.md, Evaluation); otherwise the old one keeps serving.
 */
import { useState } from "preact/hooks";
import { evals, pipelines } from "../api/endpoints";
import type { PipelineDetail } from "../api/types";
import { t } from "../i18n";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";
import { ErrorNote } from "./ErrorNote";
import { ReindexProgress } from "./ReindexProgress";

interface Props {
  pipeline: PipelineDetail;
  /** True right after saving a change that existing chunks do not reflect. */
  stale: boolean;
  onStarted: () => void;
}

/** The notice and its button. */
export function ReindexNote({ pipeline, stale, onStarted }: Props) {
  const { notify } = useApp();
  const sets = useLoad(() => evals.list(pipeline.id), [pipeline.id]);
  // "" = switch when built, as without a set.
  const [gate, setGate] = useState("");
  const reindex = useAction(async () => {
    await pipelines.reindex(pipeline.id, gate || undefined);
    notify(gate ? t("reindex.startedGated") : t("reindex.started"));
    onStarted();
  });
  return (
    <div class={`note ${stale ? "note-warn" : "note-info"} reindex`} role={stale ? "status" : undefined}>
      <ReindexProgress pipelineId={pipeline.id} processing={pipeline.status === "processing"} />
      <div>
        <strong>{stale ? t("reindex.stale") : t("reindex.notByItself")}</strong>{" "}
        {pipeline.sourceCount > 0 ? t("reindex.textAll", { count: pipeline.sourceCount }) : t("reindex.textEvery")}
      </div>
      {(sets.data?.length ?? 0) > 0 && (
        <label class="field reindex-gate">
          <span class="label">{t("reindex.switch")}</span>
          <select value={gate} onChange={(e) => setGate(e.currentTarget.value)}>
            <option value="">{t("reindex.whenBuilt")}</option>
            {sets.data!.map((s) => (
              <option value={s.id}>{t("reindex.ifNotWorse", { name: s.name })}</option>
            ))}
          </select>
        </label>
      )}
      <button type="button" class="btn btn-small" onClick={() => void reindex.run()} disabled={reindex.busy}>
        {reindex.busy ? t("reindex.starting") : t("reindex.now")}
      </button>
      <ErrorNote error={reindex.error} context={t("reindex.failed")} />
    </div>
  );
}
