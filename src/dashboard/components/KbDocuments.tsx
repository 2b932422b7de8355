/** The documents of a knowledge base with their status, errors and Delete. */
import { useState } from "preact/hooks";
import { knowledgeBases } from "../api/endpoints";
import type { KbDocument } from "../api/types";
import { formatBytes, plural, timeAgo } from "../lib/format";
import { useAction } from "../lib/hooks";
import { useApp } from "../lib/session";
import { ConfirmDialog } from "./ConfirmDialog";
import { EmptyState } from "./EmptyState";
import { ProgressBar } from "./ProgressBar";
import { StatusBadge } from "./StatusBadge";

interface Props {
  kbId: string;
  documents: KbDocument[];
  onChanged: () => void;
}

/** A list of documents; failed ones say why. */
export function KbDocuments({ kbId, documents, onChanged }: Props) {
  const { notify } = useApp();
  const [doomed, setDoomed] = useState<KbDocument | undefined>(undefined);
  const remove = useAction(async (d: KbDocument) => {
    await knowledgeBases.removeDocument(kbId, d.id);
    setDoomed(undefined);
    notify(`“${d.fileName}” deleted.`);
    onChanged();
  });
  return (
    <section aria-labelledby="kb-docs-h">
      <h2 id="kb-docs-h">Documents</h2>
      {documents.length === 0 ? (
        <EmptyState title="No documents yet">
          Upload a file above; it is extracted, chunked and embedded in the background.
        </EmptyState>
      ) : (
        <ul class="rows" aria-label="Documents">
          {documents.map((d) => (
            <li class="row" key={d.id}>
              <div class="row-main">
                <div class="row-title">
                  <strong class="break">{d.fileName}</strong>
                  <StatusBadge status={d.status} />
                </div>
                <div class="small muted">
                  {formatBytes(d.fileSize)} · {d.status === "ready" ? `${plural(d.chunkCount, "chunk")} · ` : ""}
                  added {timeAgo(d.created_at)}
                </div>
                {d.status === "processing" && (
                  <ProgressBar
                    label={`Progress of ${d.fileName}`}
                    value={d.progress?.done ?? 0}
                    max={d.progress?.total ?? 0}
                  />
                )}
                {d.status === "failed" && d.error && (
                  <p class="source-error small">
                    <strong>Why it failed:</strong> {d.error}
                  </p>
                )}
              </div>
              <div class="row-actions">
                <button
                  type="button"
                  class="btn btn-small btn-ghost-danger"
                  onClick={() => setDoomed(d)}
                  aria-label={`Delete ${d.fileName}`}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {doomed && (
        <ConfirmDialog
          title={`Delete “${doomed.fileName}”?`}
          confirmLabel="Delete document"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => (setDoomed(undefined), remove.setError(undefined))}
        >
          <p>
            The document, its stored file and its {plural(doomed.chunkCount, "chunk")} are removed. There is no undo.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
