/**
 * A drop zone around real file inputs: click, Enter/Space or drag a file onto it. With
 * `onPickMany` it takes many files, and whole folders (a second input chooses a folder;
 * a dropped folder is walked, lib/picked-files.ts).
 */
import { useId, useState } from "preact/hooks";
import { t } from "../i18n";
import { type Picked, type PickedFile, pickedFromDrop, pickedFromList } from "../lib/picked-files";

interface Props {
  label: string;
  hint?: string;
  /** The input's `accept` list; the file dialog shows these types first. */
  accept?: string;
  /** One file: the first chosen or dropped. */
  onPick?: (file: File) => void;
  /** Every file chosen or dropped, folders' files included; `count` may exceed the files read (lib/picked-files.ts). */
  onPickMany?: (files: PickedFile[], count: number) => void;
  /** A dropped file or folder the browser could not read. */
  onPickError?: (err: Error) => void;
}

export function FilePicker({ label, hint, accept, onPick, onPickMany, onPickError }: Props) {
  const id = useId();
  const folderId = useId();
  const [over, setOver] = useState(false);
  const picked = ({ files, count }: Picked) => {
    if (count === 0) return;
    if (onPickMany) onPickMany(files, count);
    else if (files[0]) onPick?.(files[0].file);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the drop target; the file inputs inside are the keyboard path
    <div
      class={`dropzone${over ? " dropzone-over" : ""}`}
      onDragOver={(e) => (e.preventDefault(), setOver(true))}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        pickedFromDrop(e.dataTransfer).then(picked, (err: Error) => onPickError?.(err));
      }}
    >
      <input
        id={id}
        type="file"
        accept={accept}
        multiple={onPickMany !== undefined}
        data-pick="files"
        class="sr-only"
        onChange={(e) => {
          const list = pickedFromList(e.currentTarget.files);
          e.currentTarget.value = "";
          picked(list);
        }}
      />
      {onPickMany && (
        <input
          id={folderId}
          type="file"
          data-pick="folder"
          class="sr-only"
          // The folder dialog: every file under the chosen folder, with its relative path.
          {...{ webkitdirectory: true }}
          onChange={(e) => {
            const list = pickedFromList(e.currentTarget.files);
            e.currentTarget.value = "";
            picked(list);
          }}
        />
      )}
      <div class="dropzone-label">
        <label for={id} class="btn" data-for="files">
          {t(onPickMany ? "filePicker.chooseFiles" : "filePicker.choose")}
        </label>
        {onPickMany && (
          <label for={folderId} class="btn" data-for="folder">
            {t("filePicker.chooseFolder")}
          </label>
        )}
        <span class="muted">{label}</span>
        {hint && <span class="hint">{hint}</span>}
      </div>
    </div>
  );
}
