/**
 * Uploading a file into a pipeline: create the `file` source, then PUT the bytes
 * to its signed `uploadUrl` with XMLHttpRequest so the bar shows real progress.
 */
import { useRef, useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import { sources } from "../api/endpoints";
import type { Source } from "../api/types";
import { uploadTarget, uploadWithProgress, type UploadProgress } from "../api/upload";
import { t } from "../i18n";
import { formatBytes } from "../lib/format";
import { useApp } from "../lib/session";
import { ProgressBar } from "./ProgressBar";
import { UploadBox } from "./UploadBox";

/** Picks a file and uploads it with a progress bar and a Cancel button. */
export function FileUpload({ pipelineId, onUploaded }: { pipelineId: string; onUploaded: () => void }) {
  const { notify } = useApp();
  const [progress, setProgress] = useState<UploadProgress | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);

  const upload = async (file: File) => {
    setError(undefined);
    setProgress({ loaded: 0, total: file.size });
    const ctl = (abort.current = new AbortController());
    let created: Source | undefined;
    try {
      const s = await sources.create(pipelineId, {
        type: "file",
        name: file.name,
        fileName: file.name,
        fileSize: file.size,
      });
      created = s;
      onUploaded(); // shows the new source (awaiting upload) at once
      if (!s.uploadUrl) throw new Error(t("upload.noAddress"));
      await uploadWithProgress({
        method: "PUT",
        url: uploadTarget(s.uploadUrl),
        body: file,
        contentType: file.type || "application/octet-stream",
        onProgress: setProgress,
        signal: ctl.signal,
      });
      notify(t("upload.indexing", { name: file.name }));
    } catch (e) {
      const err = e as ApiError;
      // A cancelled upload leaves nothing behind, nor does the same file sent twice (409: the
      // error names the source that has it); a failed one stays visible with its error.
      if (created && (err.code === "aborted" || err.status === 409))
        await sources.remove(pipelineId, created.id).catch(() => undefined);
      if (err.code !== "aborted") setError(err);
    } finally {
      setProgress(undefined);
      abort.current = undefined;
      onUploaded();
    }
  };

  return (
    <UploadBox
      uploading={
        progress && (
          <div class="upload-status">
            <ProgressBar
              label={t("upload.progress")}
              value={progress.loaded}
              max={progress.total}
              text={t("upload.of", { done: formatBytes(progress.loaded), total: formatBytes(progress.total) })}
            />
            <button type="button" class="btn btn-small" onClick={() => abort.current?.abort()}>
              {t("common.cancel")}
            </button>
          </div>
        )
      }
      onPick={(f) => void upload(f)}
      error={error}
    />
  );
}
