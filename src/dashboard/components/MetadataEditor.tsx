/** A source's metadata as key/value rows, saved with PATCH (nothing is embedded again). */
import { useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import type { Source } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { type MetaRow, fromRows, toRows } from "../lib/metadata-rows";
import { EditorActions } from "./EditorActions";
import { ErrorNote } from "./ErrorNote";
import { MetadataRowsInput } from "./MetadataRowsInput";

interface Props {
  pipelineId: string;
  source: Source;
  onSaved: () => void;
  onCancel: () => void;
}

export function MetadataEditor({ pipelineId, source, onSaved, onCancel }: Props) {
  const [rows, setRows] = useState<MetaRow[]>(() => {
    const r = toRows(source.metadata ?? {});
    return r.length ? r : [{ key: "", type: "text", value: "" }];
  });
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(async () => {
    const parsed = fromRows(rows);
    if ("error" in parsed) return setProblem(parsed.error);
    setProblem(null);
    await sources.update(pipelineId, source.id, { metadata: parsed.metadata });
    onSaved();
  });
  return (
    <form
      class="form meta-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <MetadataRowsInput
        label={t("meta.of", { name: source.name })}
        rows={rows}
        onChange={setRows}
        blank={() => ({ key: "", type: "text", value: "" })}
      />
      <p class="hint">{t("meta.hint")}</p>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
      <ErrorNote error={save.error} context={t("meta.failed")} />
      <EditorActions busy={save.busy} label={t("meta.save")} onCancel={onCancel} />
    </form>
  );
}
