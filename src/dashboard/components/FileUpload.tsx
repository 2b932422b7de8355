/**
 * Uploading files into a pipeline: for each, create the `file` source (named by its path
 * within a chosen folder), then PUT the bytes to its signed `uploadUrl` with XMLHttpRequest
 * so the bar shows real progress; many at once (UploadBox).
 */
import { useCallback } from "preact/hooks";
import type { ApiError } from "../api/client";
import { sources } from "../api/endpoints";
import type { Source } from "../api/types";
import { uploadTarget, uploadWithProgress } from "../api/upload";
import { t } from "../i18n";
import type { SendFile } from "./BulkUpload";
import { UploadBox } from "./UploadBox";

/** Source names are at most 200 characters: a long path keeps its end, where the file's name is. */
const nameOf = (path: string) => (path.length <= 200 ? path : `…${path.slice(-199)}`);

export function FileUpload({ pipelineId, onUploaded }: { pipelineId: string; onUploaded: () => void }) {
  const send = useCallback<SendFile>(
    async ({ file, path }, onProgress, signal) => {
      let created: Source | undefined;
      try {
        const s = await sources.create(pipelineId, {
          type: "file",
          name: nameOf(path),
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
          onProgress,
          signal,
        });
      } catch (e) {
        const err = e as ApiError;
        // A cancelled upload leaves nothing behind, nor does the same file sent twice (409: the
        // error names the source that has it); a failed one stays visible with its error.
        if (created && (err.code === "aborted" || err.status === 409))
          await sources.remove(pipelineId, created.id).catch(() => undefined);
        throw err;
      }
    },
    [pipelineId, onUploaded],
  );
  return <UploadBox send={send} onFileDone={onUploaded} />;
}
