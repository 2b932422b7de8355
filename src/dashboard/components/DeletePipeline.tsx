/** The danger zone: delete a pipeline after saying exactly what goes with it. */
import { useState } from "preact/hooks";
import { keys, pipelines } from "../api/endpoints";
import type { PipelineDetail } from "../api/types";
import { plural } from "../lib/format";
import { useAction } from "../lib/hooks";
import { useApp } from "../lib/session";
import { navigate } from "../router";
import { ConfirmDialog } from "./ConfirmDialog";

/** A card with the Delete button and its confirmation. */
export function DeletePipeline({ pipeline: p }: { pipeline: PipelineDetail }) {
  const { notify } = useApp();
  const [open, setOpen] = useState(false);
  const [keyCount, setKeyCount] = useState<number | undefined>(undefined);
  const remove = useAction(async () => {
    await pipelines.remove(p.id);
    notify(`Pipeline “${p.name}” deleted.`);
    navigate("/pipelines");
  });
  const ask = () => {
    setOpen(true);
    keys.list(p.id).then(
      (k) => setKeyCount(k.length),
      () => setKeyCount(undefined),
    );
  };
  // dataSources is the first page only; beyond it the number of files is not known here.
  const files = p.dataSources.filter((s) => s.type === "file").length;
  const allListed = p.dataSources.length >= p.sourceCount;

  return (
    <section class="card card-danger" aria-labelledby="danger-h">
      <h2 id="danger-h">Delete this pipeline</h2>
      <p class="muted">Removes the pipeline and everything in it. There is no undo.</p>
      <button type="button" class="btn btn-danger" onClick={ask}>
        Delete pipeline…
      </button>
      {open && (
        <ConfirmDialog
          title={`Delete “${p.name}”?`}
          confirmLabel="Delete pipeline"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run()}
          onCancel={() => (setOpen(false), remove.setError(undefined))}
        >
          <p>This permanently removes:</p>
          <ul>
            <li>the pipeline “{p.name}” and its settings,</li>
            <li>
              {plural(p.sourceCount, "data source")} and {plural(p.chunkCount, "indexed chunk")}
              {allListed
                ? files > 0
                  ? `, with ${plural(files, "uploaded file")}`
                  : ""
                : ", with their uploaded files"}
              ,
            </li>
            <li>
              {keyCount === undefined ? "its API keys" : plural(keyCount, "API key")}, which stop working at once.
            </li>
          </ul>
        </ConfirmDialog>
      )}
    </section>
  );
}
