/**
 * The query log setting in the Settings tab (docs/API.md, "Query log and insight"): on or
 * off, and the days a logged search is kept. Off, and shown why, when the server forbids it.
 */
import { useState } from "preact/hooks";
import { insight } from "../api/insight";
import type { Pipeline } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { useApp } from "../lib/session";
import { ErrorNote } from "./ErrorNote";
import { NumberField } from "./NumberField";

export function QueryLogCard({ pipeline, onSaved }: { pipeline: Pipeline; onSaved: () => void }) {
  const { notify } = useApp();
  const shown = pipeline.queryLog;
  const [enabled, setEnabled] = useState(shown.enabled);
  const [days, setDays] = useState<number | null>(shown.retentionDays);
  const valid = days !== null && Number.isInteger(days) && days >= 1 && days <= 3650;
  const save = useAction(async () => {
    await insight.setQueryLog(pipeline.id, { enabled, retentionDays: days! });
    notify(t("queryLog.saved"));
    onSaved();
  });
  return (
    <section class="card" aria-labelledby="query-log-h">
      <h2 id="query-log-h">{t("queryLog.title")}</h2>
      <p class="muted">{t("queryLog.intro")}</p>
      {!shown.allowed && <p class="note note-info">{t("insight.logForbidden")}</p>}
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) void save.run();
        }}
      >
        <label class="check">
          <input
            type="checkbox"
            checked={enabled}
            disabled={!shown.allowed}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          <span>{t("queryLog.enabled")}</span>
        </label>
        <NumberField
          label={t("queryLog.retention")}
          hint={t("queryLog.retentionHint")}
          error={valid ? undefined : t("queryLog.retentionRange")}
          value={days}
          onChange={setDays}
          min={1}
          max={3650}
        />
        <ErrorNote error={save.error} context={t("queryLog.saveFailed")} />
        <div>
          <button type="submit" class="btn btn-primary" disabled={save.busy || !valid || !shown.allowed}>
            {t("queryLog.save")}
          </button>
        </div>
      </form>
    </section>
  );
}
