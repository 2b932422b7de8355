/** A drop zone around a real file input: click, Enter/Space or drag a file onto it. */
import { useId, useState } from "preact/hooks";
import { t } from "../i18n";

interface Props {
  label: string;
  hint?: string;
  /** The input's `accept` list; the file dialog shows these types first. */
  accept?: string;
  onPick: (file: File) => void;
}

/** Calls `onPick` with the chosen or dropped file. */
export function FilePicker({ label, hint, accept, onPick }: Props) {
  const id = useId();
  const [over, setOver] = useState(false);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the drop target; the file input inside is the keyboard path
    <div
      class={`dropzone${over ? " dropzone-over" : ""}`}
      onDragOver={(e) => (e.preventDefault(), setOver(true))}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const f = e.dataTransfer?.files[0];
        if (f) onPick(f);
      }}
    >
      <input
        id={id}
        type="file"
        accept={accept}
        class="sr-only"
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = "";
          if (f) onPick(f);
        }}
      />
      <label for={id} class="dropzone-label">
        <span class="btn">{t("filePicker.choose")}</span>
        <span class="muted">{label}</span>
        {hint && <span class="hint">{hint}</span>}
      </label>
    </div>
  );
}
