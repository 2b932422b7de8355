/**
 * "Saving does not re-index": the notice under the settings form, with the
 * Re-index now action. After a change to chunking or the model it turns into a
 * warning, since existing sources still carry the old chunks and embeddings.
 */
import { pipelines } from "../api/endpoints";
import type { PipelineDetail } from "../api/types";
import { plural } from "../lib/format";
import { useAction } from "../lib/hooks";
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
  const reindex = useAction(async () => {
    await pipelines.reindex(pipeline.id);
    notify("Re-indexing started; the Sources tab shows its progress.");
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
      <button type="button" class="btn btn-small" onClick={() => void reindex.run()} disabled={reindex.busy}>
        {reindex.busy ? "Starting…" : "Re-index now"}
      </button>
      <ErrorNote error={reindex.error} context="Could not start re-indexing" />
    </div>
  );
}
