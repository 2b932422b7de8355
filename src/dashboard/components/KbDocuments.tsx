/** The documents of a knowledge base with their status, errors and Delete. */
import { useState } from "preact/hooks";
import { knowledgeBases } from "../api/endpoints";
import type { KbDocument } from "../api/types";
import { t } from "../i18n";
import { formatBytes, timeAgo } from "../lib/format";
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
    notify(t("common.deletedName", { name: d.fileName }));
    onChanged();
  });
  return (
    <section aria-labelledby="kb-docs-h">
      <h2 id="kb-docs-h">{t("kbDocs.title")}</h2>
      {documents.length === 0 ? (
        <EmptyState title={t("kbDocs.none")}>{t("kbDocs.noneText")}</EmptyState>
      ) : (
        <ul class="rows" aria-label={t("kbDocs.title")}>
          {documents.map((d) => (
            <li class="row" key={d.id}>
              <div class="row-main">
                <div class="row-title">
                  <strong class="break">{d.fileName}</strong>
                  <StatusBadge status={d.status} />
                </div>
                <div class="small muted">
                  {formatBytes(d.fileSize)} ·{" "}
                  {d.status === "ready" ? `${t("count.chunks", { count: d.chunkCount })} · ` : ""}
                  {t("kbDocs.added", { when: timeAgo(d.created_at) })}
                </div>
                {d.status === "processing" && (
                  <ProgressBar
                    label={t("kbDocs.progressOf", { name: d.fileName })}
                    value={d.progress?.done ?? 0}
                    max={d.progress?.total ?? 0}
                  />
                )}
                {d.status === "failed" && d.error && (
                  <p class="source-error small">
                    <strong>{t("common.whyFailed")}</strong> {d.error}
                  </p>
                )}
              </div>
              <div class="row-actions">
                <button
                  type="button"
                  class="btn btn-small btn-ghost-danger"
                  onClick={() => setDoomed(d)}
                  aria-label={t("common.deleteWhat", { name: d.fileName })}
                >
                  {t("common.delete")}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {doomed && (
        <ConfirmDialog
          title={t("deletePipeline.confirmTitle", { name: doomed.fileName })}
          confirmLabel={t("kbDocs.confirm")}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => (setDoomed(undefined), remove.setError(undefined))}
        >
          <p>{t("kbDocs.confirmText", { chunks: t("count.chunks", { count: doomed.chunkCount }) })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
