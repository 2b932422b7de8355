/** Where a document is picked for upload, and what an upload under way or failed shows instead. */
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api/client";
import { FILE_ACCEPT, FILE_FORMATS_HINT } from "../lib/formats";
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
        <FilePicker
          label="Choose a file or drop it here"
          hint={FILE_FORMATS_HINT}
          accept={FILE_ACCEPT}
          onPick={onPick}
        />
      )}
      <ErrorNote error={error} context="Upload failed" />
    </div>
  );
}
