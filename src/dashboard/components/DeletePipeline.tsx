/** The danger zone: delete a pipeline after saying exactly what goes with it. */
import { useState } from "preact/hooks";
import { keys, pipelines } from "../api/endpoints";
import type { PipelineDetail } from "../api/types";
import { t } from "../i18n";
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
    notify(t("deletePipeline.deleted", { name: p.name }));
    navigate("/pipelines");
  });
  const ask = () => {
    setOpen(true);
    keys.list({ kind: "pipeline", id: p.id }).then(
      (k) => setKeyCount(k.length),
      () => setKeyCount(undefined),
    );
  };
  // dataSources is the first page only; beyond it the number of files is not known here.
  const files = p.dataSources.filter((s) => s.type === "file").length;
  const allListed = p.dataSources.length >= p.sourceCount;
  const what = t("deletePipeline.sourcesChunks", {
    sources: t("count.dataSources", { count: p.sourceCount }),
    chunks: t("count.indexedChunks", { count: p.chunkCount }),
  });
  const withFiles = allListed
    ? files > 0
      ? t("deletePipeline.withFiles", { files: t("count.uploadedFiles", { count: files }) })
      : ""
    : t("deletePipeline.withTheirFiles");

  return (
    <section class="card card-danger" aria-labelledby="danger-h">
      <h2 id="danger-h">{t("deletePipeline.title")}</h2>
      <p class="muted">{t("deletePipeline.text")}</p>
      <button type="button" class="btn btn-danger" onClick={ask}>
        {t("deletePipeline.button")}
      </button>
      {open && (
        <ConfirmDialog
          title={t("deletePipeline.confirmTitle", { name: p.name })}
          confirmLabel={t("deletePipeline.confirm")}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run()}
          onCancel={() => (setOpen(false), remove.setError(undefined))}
        >
          <p>{t("deletePipeline.removes")}</p>
          <ul>
            <li>{t("deletePipeline.itemPipeline", { name: p.name })}</li>
            <li>{t("deletePipeline.itemData", { what, withFiles })}</li>
            <li>
              {t("deletePipeline.itemKeys", {
                keys: keyCount === undefined ? t("deletePipeline.itsKeys") : t("count.apiKeys", { count: keyCount }),
              })}
            </li>
          </ul>
        </ConfirmDialog>
      )}
    </section>
  );
}
