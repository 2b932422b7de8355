/** Uploading into a knowledge base: multipart POST with a progress bar per file. */
import { useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import { knowledgeBases } from "../api/endpoints";
import { uploadWithProgress, type UploadProgress } from "../api/upload";
import { t } from "../i18n";
import { formatBytes } from "../lib/format";
import { useApp } from "../lib/session";
import { ProgressBar } from "./ProgressBar";
import { UploadBox } from "./UploadBox";

/** One file at a time; the document appears in the list as soon as it is accepted. */
export function KbUpload({ kbId, onUploaded }: { kbId: string; onUploaded: () => void }) {
  const { notify } = useApp();
  const [progress, setProgress] = useState<(UploadProgress & { name: string }) | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);

  const upload = async (file: File) => {
    setError(undefined);
    setProgress({ loaded: 0, total: file.size, name: file.name });
    const form = new FormData();
    form.append("file", file, file.name);
    try {
      await uploadWithProgress({
        method: "POST",
        url: knowledgeBases.uploadPath(kbId),
        body: form,
        onProgress: (p) => setProgress({ ...p, name: file.name }),
      });
      notify(t("upload.processing", { name: file.name }));
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setProgress(undefined);
      onUploaded();
    }
  };

  return (
    <UploadBox
      uploading={
        progress && (
          <ProgressBar
            label={t("upload.uploading", { name: progress.name })}
            value={progress.loaded}
            max={progress.total}
            text={`${progress.name}: ${t("upload.of", { done: formatBytes(progress.loaded), total: formatBytes(progress.total) })}`}
          />
        )
      }
      onPick={(f) => void upload(f)}
      error={error}
    />
  );
}
