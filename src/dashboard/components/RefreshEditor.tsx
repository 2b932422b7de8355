/** A url/api source's refresh schedule, changed with PATCH (docs/API.md, "Refresh and crawl"). */
import { useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import type { Source } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { EditorActions } from "./EditorActions";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { REFRESH_CHOICES } from "./FetchSettingsInput";

interface Props {
  pipelineId: string;
  source: Source;
  onSaved: () => void;
  onCancel: () => void;
}

const SECONDS: Record<string, number> = { "1h": 3600, "6h": 21_600, "1d": 86_400, "7d": 604_800 };

export function RefreshEditor({ pipelineId, source, onSaved, onCancel }: Props) {
  const current = Object.entries(SECONDS).find(([, n]) => n === source.refreshEvery)?.[0];
  // A schedule set through the API that the menu does not offer stays as it is until changed.
  const custom = source.refreshEvery && !current ? String(source.refreshEvery) : null;
  const [every, setEvery] = useState(current ?? custom ?? "");
  const save = useAction(async () => {
    await sources.update(pipelineId, source.id, { refreshEvery: every ? (SECONDS[every] ?? Number(every)) : null });
    onSaved();
  });
  return (
    <form
      class="form"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <Field label={t("refreshEditor.label", { name: source.name })} hint={t("refreshEditor.hint")}>
        {(ids) => (
          <select {...ids} value={every} onChange={(e) => setEvery(e.currentTarget.value)}>
            {REFRESH_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {t(label)}
              </option>
            ))}
            {custom && <option value={custom}>{t("refreshEditor.seconds", { count: Number(custom) })}</option>}
          </select>
        )}
      </Field>
      <ErrorNote error={save.error} context={t("refreshEditor.failed")} />
      <EditorActions busy={save.busy} label={t("refreshEditor.save")} onCancel={onCancel} />
    </form>
  );
}
