/** Uploading into a knowledge base: each file a multipart POST, many at once (UploadBox). */
import { useCallback } from "preact/hooks";
import { knowledgeBases } from "../api/endpoints";
import { uploadWithProgress } from "../api/upload";
import type { SendFile } from "./BulkUpload";
import { UploadBox } from "./UploadBox";

/** Each document appears in the list as soon as it is accepted. */
export function KbUpload({ kbId, onUploaded }: { kbId: string; onUploaded: () => void }) {
  const send = useCallback<SendFile>(
    async ({ file }, onProgress, signal) => {
      const form = new FormData();
      form.append("file", file, file.name);
      await uploadWithProgress({
        method: "POST",
        url: knowledgeBases.uploadPath(kbId),
        body: form,
        onProgress,
        signal,
      });
    },
    [kbId],
  );
  return <UploadBox send={send} onFileDone={onUploaded} />;
}
