/** Save and Cancel under a small editor that opens inside a source's row. */
export function EditorActions({ busy, label, onCancel }: { busy: boolean; label: string; onCancel: () => void }) {
  return (
    <div class="form-actions">
      <button type="submit" class="btn btn-primary btn-small" disabled={busy}>
        {busy ? "Saving…" : label}
      </button>
      <button type="button" class="btn btn-small" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
