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
import { plural } from "../lib/format";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";
import { ErrorNote } from "./ErrorNote";

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
    notify(
      gate
        ? "Re-indexing started; it switches in only if the set does not score worse (see the Quality tab)."
        : "Re-indexing started; the Sources tab shows its progress.",
    );
    onStarted();
  });
  return (
    <div class={`note ${stale ? "note-warn" : "note-info"} reindex`} role={stale ? "status" : undefined}>
      <div>
        <strong>
          {stale ? "Saved. Existing sources still use the old settings." : "Saving does not re-index existing data."}
        </strong>{" "}
        New settings apply to sources added from now on. Re-index to chunk and embed{" "}
        {pipeline.sourceCount > 0 ? `all ${plural(pipeline.sourceCount, "source")}` : "every source"} again with the
        current settings; queries keep working meanwhile.
      </div>
      {(sets.data?.length ?? 0) > 0 && (
        <label class="field reindex-gate">
          <span class="label">Switch to the new index</span>
          <select value={gate} onChange={(e) => setGate(e.currentTarget.value)}>
            <option value="">when it is built</option>
            {sets.data!.map((s) => (
              <option value={s.id}>only if not worse on “{s.name}”</option>
            ))}
          </select>
        </label>
      )}
      <button type="button" class="btn btn-small" onClick={() => void reindex.run()} disabled={reindex.busy}>
        {reindex.busy ? "Starting…" : "Re-index now"}
      </button>
      <ErrorNote error={reindex.error} context="Could not start re-indexing" />
    </div>
  );
}
