/** Where documents are picked for upload (many files, or folders), and the upload of a set under way instead. */
import { useCallback, useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import { t } from "../i18n";
import { FILE_ACCEPT } from "../lib/formats";
import { useApp } from "../lib/session";
import { MAX_PICKED, type PickedFile } from "../lib/picked-files";
import { BulkUpload, type SendFile } from "./BulkUpload";
import { ErrorNote } from "./ErrorNote";
import { FilePicker } from "./FilePicker";

/** The picker offers the formats the server reads; a set of files uploads as one (BulkUpload). */
export function UploadBox({ send, onFileDone }: { send: SendFile; onFileDone: () => void }) {
  const [picked, setPicked] = useState<PickedFile[] | undefined>(undefined);
  const [refused, setRefused] = useState<ApiError | undefined>(undefined);
  const pick = (files: PickedFile[], count: number) => {
    setRefused(undefined);
    if (count > MAX_PICKED) {
      const message = t("bulk.tooMany", { max: MAX_PICKED, count });
      setRefused({ status: 0, code: "too_many", message } as ApiError);
      return;
    }
    setPicked(files);
  };
  const unreadable = (err: Error) => setRefused({ status: 0, code: "unreadable", message: err.message } as ApiError);
  const { notify } = useApp();
  // A set that went through whole is announced and the picker comes back at once.
  const close = useCallback(
    (uploaded?: number) => {
      if (uploaded) notify(t("bulk.done", { count: uploaded }));
      setPicked(undefined);
    },
    [notify],
  );
  return (
    <div class="stack-sm">
      {picked ? (
        <BulkUpload picked={picked} send={send} onFileDone={onFileDone} onClose={close} />
      ) : (
        <FilePicker
          label={t("uploadBox.labelMany")}
          hint={t("uploadBox.formats")}
          accept={FILE_ACCEPT}
          onPickMany={pick}
          onPickError={unreadable}
        />
      )}
      <ErrorNote error={refused} context={t("uploadBox.failed")} />
    </div>
  );
}
