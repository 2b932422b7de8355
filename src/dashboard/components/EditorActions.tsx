/** Save and Cancel under a small editor that opens inside a source's row. */
import { t } from "../i18n";

export function EditorActions({ busy, label, onCancel }: { busy: boolean; label: string; onCancel: () => void }) {
  return (
    <div class="form-actions">
      <button type="submit" class="btn btn-primary btn-small" disabled={busy}>
        {busy ? t("common.saving") : label}
      </button>
      <button type="button" class="btn btn-small" onClick={onCancel}>
        {t("common.cancel")}
      </button>
    </div>
  );
}
