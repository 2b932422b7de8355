/** Where a document is picked for upload, and what an upload under way or failed shows instead. */
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api/client";
import { t } from "../i18n";
import { FILE_ACCEPT } from "../lib/formats";
import { ErrorNote } from "./ErrorNote";
import { FilePicker } from "./FilePicker";

interface Props {
  /** While an upload runs: its progress (shown in place of the picker); otherwise undefined. */
  uploading: ComponentChildren | undefined;
  onPick: (file: File) => void;
  error: ApiError | undefined;
}

/** The picker offers the formats the server reads; one file at a time. */
export function UploadBox({ uploading, onPick, error }: Props) {
  return (
    <div class="stack-sm">
      {uploading ?? (
        <FilePicker label={t("uploadBox.label")} hint={t("uploadBox.formats")} accept={FILE_ACCEPT} onPick={onPick} />
      )}
      <ErrorNote error={error} context={t("uploadBox.failed")} />
    </div>
  );
}
